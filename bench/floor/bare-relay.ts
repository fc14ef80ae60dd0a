// The stack's floor: the cheapest relay Munja's own parts can make. uWebSockets.js takes the
// request, an undici Pool (set up as Munja's are: HTTP/1.1, one request per connection at a time)
// sends its body on to the mock through the low-level dispatch API, and the reply goes back
// unchanged. No key, no parsing, no validation, no limiter, no log, no metrics: what it costs per
// request is what any gateway built on these two libraries pays before doing anything of its own.
//   node bench/floor/bare-relay.ts --upstream http://127.0.0.1:PORT [--port 0]   prints {"port":N}
import { parseArgs } from 'node:util';
import { type Dispatcher, Pool } from 'undici';
import { statusLine } from '../../src/http/status-lines.ts';
import { type HttpResponse, uws } from '../../src/http/uws.ts';

const { values } = parseArgs({ options: { upstream: { type: 'string' }, port: { type: 'string', default: '0' } } });
if (values.upstream === undefined) throw new Error('--upstream is required');
const pool = new Pool(values.upstream, { connections: 256, pipelining: 1, allowH2: false });
const UPSTREAM_HEADERS = { 'content-type': 'application/json' };

class Relay implements Dispatcher.DispatchHandler {
  readonly #res: HttpResponse;
  readonly #chunks: Buffer[] = [];
  #status = 502;
  #aborted = false;

  constructor(res: HttpResponse) {
    this.#res = res;
    res.onAborted(() => { this.#aborted = true; });
  }

  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.#status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#reply(statusLine(this.#status), Buffer.concat(this.#chunks));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
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
