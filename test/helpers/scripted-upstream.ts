// A model server whose every answer a test writes itself, byte for byte: for upstreams that break
// the protocol in ways the mock upstream's behaviours do not (cut streams, bytes that are not SSE).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `body`: the request's body, read whole. */
export type Answer = (response: ServerResponse, request: IncomingMessage, body: string) => void;

export interface ScriptedUpstream {
  readonly baseUrl: string;
  /** What the next requests get. */
  answer: Answer;
  /** Requests whose connection closed before their answer ended. */
  readonly aborted: number;
  close(): Promise<void>;
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  let aborted = 0;
  const upstream = {
    baseUrl: '',
    answer: ((response) => response.end()) as Answer,
    get aborted() {
      return aborted;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = createServer((request, response) => {
    response.on('close', () => {
      if (!response.writableFinished) aborted++;
    });
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { body += chunk; });
    request.on('end', () => upstream.answer(response, request, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return upstream;
}

/** A chat.completion.chunk event with these choices. */
export function chunkEvent(choices: string): string {
  return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[${choices}]}\n\n`;
}

export const contentEvent = (text: string) => chunkEvent(`{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}`);
export const FINISH_EVENT = chunkEvent('{"index":0,"delta":{},"finish_reason":"stop"}');

/** Starts an event stream and writes `parts` in turn, then ends the response. */
export function stream(...parts: Array<string | Buffer>): Answer {
  return (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const part of parts) response.write(part);
    response.end();
  };
}
