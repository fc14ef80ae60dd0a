// The mock upstream's side of one exchange: guarded writes, backpressure, and what the test can observe.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Behavior, Channel } from './mock-upstream-behaviors.ts';

/** One request as the mock saw it. The counters and flags are live while the response is in flight. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when empty or not JSON. */
  readonly body: unknown;
  /** The body as sent, before parsing. */
  readonly rawBody: string;
  /** The behaviour run; undefined for routes other than chat completions, responses and messages. */
  readonly behavior: Behavior | undefined;
  /** The status sent; undefined while no header has gone out (hang, reset). */
  readonly status: number | undefined;
  /** The client closed the connection before the response ended. */
  readonly aborted: boolean;
  /** The response ended normally. */
  readonly finished: boolean;
  /** SSE frames handed to the socket, the role chunk and [DONE] included. */
  readonly chunksWritten: number;
  /** Body bytes handed to the socket. */
  readonly bytesWritten: number;
  /** A write returned false and the mock is waiting for 'drain': the client is not reading. */
  readonly waitingForDrain: boolean;
}

export type RequestRecord = { -readonly [K in keyof SeenRequest]: SeenRequest[K] };

export function newRecord(req: IncomingMessage, path: string, body: unknown, rawBody: string): RequestRecord {
  return {
    method: req.method ?? '',
    path,
    headers: req.headers,
    body,
    rawBody,
    behavior: undefined,
    status: undefined,
    aborted: false,
    finished: false,
    chunksWritten: 0,
    bytesWritten: 0,
    waitingForDrain: false,
  };
}

export interface ChannelHooks {
  /** Something observable changed. */
  notify(): void;
  onAbort(): void;
  /** True while the mock is shutting down: closes then are not client aborts. */
  isClosing(): boolean;
}

export function openChannel(req: IncomingMessage, res: ServerResponse, record: RequestRecord, hooks: ChannelHooks): Channel {
  let open = true;
  let selfClosed = false;
  const closed = new Promise<void>((resolve) => {
    res.once('close', () => {
      open = false;
      if (!res.writableFinished && !selfClosed && !hooks.isClosing()) {
        record.aborted = true;
        hooks.onAbort();
      }
      hooks.notify();
      resolve();
    });
  });
  res.once('finish', () => {
    record.finished = true;
    hooks.notify();
  });
  const isOpen = () => open && !res.writableEnded;

  /** Resolves on `event`, else after `ms`, or early when the connection closes. */
  const until = (event: 'drain' | undefined, ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (event) res.off(event, done);
        res.off('close', done);
        resolve();
      };
      const timer = event ? undefined : setTimeout(done, ms);
      if (event) res.once(event, done);
      res.once('close', done);
    });

  return {
    isOpen,
    closed,
    pause: (ms) => (ms > 0 && isOpen() ? until(undefined, ms) : Promise.resolve()),
    sendJson(status, body, headers = {}) {
      if (!isOpen() || res.headersSent) return;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      record.status = status;
      record.bytesWritten += Buffer.byteLength(text);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
    },
    startEventStream() {
      if (!isOpen() || res.headersSent) return;
      record.status = 200;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.flushHeaders();
    },
    async writeFrame(frame) {
      if (!isOpen()) return false;
      record.chunksWritten++;
      record.bytesWritten += Buffer.byteLength(frame);
      const flushed = res.write(frame);
      hooks.notify();
      if (!flushed && isOpen()) {
        record.waitingForDrain = true;
        hooks.notify();
        await until('drain', 0);
        record.waitingForDrain = false;
        hooks.notify();
      }
      return isOpen();
    },
    end() {
      if (isOpen()) res.end();
    },
    reset() {
      selfClosed = true;
      req.socket.resetAndDestroy();
    },
  };
}
