import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import { BodyBudget } from '../../../src/http/body-budget.ts';
import { type Body, BodyReader } from '../../../src/http/body-reader.ts';
import { RequestContext, type ServerSettings } from '../../../src/http/request-context.ts';
import { uws } from '../../../src/http/uws.ts';
import { type ListeningApp, listenOnFreePort } from '../../helpers/uws-app.ts';

// What each request's reader handed over, as the test's route saw it.
interface Seen {
  /** The body's text inside the callback. */
  text: string;
  /** Its byte length on the next turn of the event loop. */
  lengthAfter: number;
  error?: string;
}

const settings: ServerSettings = {
  writeStallMs: 1_000,
  trustProxy: false,
  bodyBudget: new BodyBudget(Number.POSITIVE_INFINITY),
  ending: { end: () => {} },
};
const seen = new Map<string, (value: Seen) => void>();
let listening: ListeningApp;

function answer(ctx: RequestContext, value: Seen): void {
  seen.get(ctx.path)?.(value);
  if (!ctx.aborted) ctx.res.cork(() => ctx.res.end('done'));
}

beforeAll(async () => {
  const app = uws.App();
  app.post('/*', (res, req) => {
    const ctx = new RequestContext(res, req, settings);
    res.onAborted(() => { ctx.aborted = true; });
    const reader = new BodyReader(ctx, { maxBodyBytes: 64, bodyTimeoutMs: 5_000 });
    const failed = (error: unknown) => answer(ctx, { text: '', lengthAfter: -1, error: (error as ApiError).code });
    const got = (bytes: Body) => {
      const text = new TextDecoder().decode(bytes);
      setImmediate(() => answer(ctx, { text, lengthAfter: bytes.byteLength }));
    };
    if (ctx.path.startsWith('/then')) reader.readThen({ bodyRead: got, bodyFailed: failed });
    else reader.read().then(got, failed);
  });
  listening = await listenOnFreePort(app);
});

afterAll(() => listening.close());

/** Writes each piece 30 ms after the one before (a write error shows on the socket). */
async function sendApart(socket: Socket, pieces: readonly string[]): Promise<void> {
  for (const [index, piece] of pieces.entries()) {
    if (index > 0) await sleep(30);
    socket.write(piece);
  }
}

/** Sends a POST whose body goes in `pieces`, 30 ms apart; resolves with what the reader saw. */
function post(path: string, pieces: readonly string[]): Promise<Seen> {
  const length = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
  const result = new Promise<Seen>((resolve) => seen.set(path, resolve));
  const socket = connect(listening.port, '127.0.0.1', () => {
    void sendApart(socket, [`POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: ${length}\r\n\r\n${pieces[0]}`, ...pieces.slice(1)]);
  });
  socket.on('data', () => socket.end());
  socket.on('error', () => {});
  return result;
}

describe('BodyReader', () => {
  it('lends a body that came in one piece to readThen: uWS detaches it after the data callback', async () => {
    const body = '{"model":"m","messages":[]}';
    expect(await post('/then-whole', [body])).toEqual({ text: body, lengthAfter: 0 });
  });

  it('gives readThen its own copy of a body that came in pieces', async () => {
    expect(await post('/then-pieces', ['{"model":', '"m","messages":[]}'])).toEqual({ text: '{"model":"m","messages":[]}', lengthAfter: 27 });
  });

  it('never lends to read(): its body outlives the data callback', async () => {
    expect(await post('/read-whole', ['{"a":1}'])).toEqual({ text: '{"a":1}', lengthAfter: 7 });
  });

  it('refuses a body over the cap before lending it', async () => {
    expect(await post('/then-large', ['x'.repeat(65)])).toEqual({ text: '', lengthAfter: -1, error: 'request_too_large' });
  });
});
