// The stack's floor: the cheapest relay Munja's own parts can make. uWebSockets.js takes the
// request, an undici Pool (set up as Munja's are: HTTP/1.1, one request per connection at a time)
// sends its body on to the mock through the low-level dispatch API, and the reply goes back
// unchanged. No key, no parsing, no validation, no limiter, no log, no metrics: what it costs per
// request is what any gateway built on these two libraries pays before doing anything of its own.
// An event stream (the mock's `text/event-stream`) is relayed as it arrives: the chunks undici hands
// over from one upstream read (one per HTTP chunk) are written together a microtask later, one
// send per read, the head with the first and the end with the last; the upstream is paused while
// the client's socket is full.
//   node bench/floor/bare-relay.ts --upstream http://127.0.0.1:PORT [--port 0]   prints {"port":N}
import { parseArgs } from 'node:util';
import { type Dispatcher, Pool } from 'undici';
import { statusLine } from '../../src/http/status-lines.ts';
import { type HttpResponse, uws } from '../../src/http/uws.ts';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (values.upstream === undefined) throw new Error('--upstream is required');
const pool = new Pool(values.upstream, { connections: 256, pipelining: 1, allowH2: false });
const UPSTREAM_HEADERS = { 'content-type': 'application/json' };

const EVENT_STREAM = 'text/event-stream';

class Relay implements Dispatcher.DispatchHandler {
  readonly #res: HttpResponse;
  readonly #chunks: Buffer[] = [];
  #status = 502;
  #aborted = false;
  #streaming = false;
  /** A stream's chunks of the current read, and the head still to write with them. */
  #pending: Buffer[] = [];
  #head: string | null = null;
  #flushQueued = false;
  #controller: Dispatcher.DispatchController | null = null;
  readonly #flush = (): void => {
    this.#flushQueued = false;
    if (this.#aborted || (this.#head === null && this.#pending.length === 0)) return;
    let writable = true;
    this.#res.cork(() => {
      this.#writeHead();
      writable = this.#res.write(this.#take());
    });
    if (writable) return;
    const controller = this.#controller!;
    controller.pause();
    this.#res.onWritable(() => {
      controller.resume();
      return true;
    });
  };

  constructor(res: HttpResponse) {
    this.#res = res;
    res.onAborted(() => { this.#aborted = true; });
  }

  onRequestStart(): void {}

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode;
    this.#streaming = String(headers['content-type']).startsWith(EVENT_STREAM);
    if (!this.#streaming) return;
    this.#controller = controller;
    this.#head = statusLine(statusCode);
    this.#queueFlush();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.#streaming) {
      this.#chunks.push(chunk);
      return;
    }
    this.#pending.push(chunk);
    this.#queueFlush();
  }

  onResponseEnd(): void {
    if (!this.#streaming) return this.#reply(statusLine(this.#status), Buffer.concat(this.#chunks));
    if (this.#aborted) return;
    this.#res.cork(() => {
      this.#writeHead();
      this.#res.end(this.#take());
    });
  }

  #queueFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    queueMicrotask(this.#flush);
  }

  #writeHead(): void {
    if (this.#head === null) return;
    this.#res.writeStatus(this.#head).writeHeader('content-type', EVENT_STREAM);
    this.#head = null;
  }

  #take(): Buffer {
    const pending = this.#pending;
    this.#pending = [];
    return pending.length === 1 ? pending[0]! : Buffer.concat(pending);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#streaming) {
      if (!this.#aborted) this.#res.close();
      return;
    }
    this.#reply(statusLine(502), error.message);
  }

  #reply(status: string, body: Buffer | string): void {
    if (this.#aborted) return;
    this.#res.cork(() => this.#res.writeStatus(status).writeHeader('content-type', 'application/json').end(body));
  }
}

const app = uws.App();
app.post('/v1/chat/completions', (res) => {
  const relay = new Relay(res);
  const parts: Buffer[] = [];
  res.onData((piece, last) => {
    parts.push(Buffer.from(piece.slice(0))); // uWS reuses the ArrayBuffer
    if (!last) return;
    pool.dispatch({ path: '/v1/chat/completions', method: 'POST', headers: UPSTREAM_HEADERS, body: Buffer.concat(parts) }, relay);
  });
});
app.listen('127.0.0.1', Number(values.port), (socket) => {
  if (!socket) throw new Error(`cannot listen on port ${values.port}`);
  process.stdout.write(`${JSON.stringify({ port: uws.us_socket_local_port(socket) })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
