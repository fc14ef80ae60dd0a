// A bare keep-alive HTTP/1.1 client connection for the bench's own load generators (paced load,
// stream delivery, many open streams, soak): one request at a time, the body handed over as it
// arrives (Content-Length, chunked, or until close). Far cheaper per request than a full client,
// which matters because the generator shares its CPU with the mock upstream.
import { connect, type Socket } from 'node:net';
import type { HttpRequest } from './scenarios/scenario.ts';

export interface Exchange {
  /** The response body as it arrives (chunked framing removed). */
  onBody?(piece: Buffer): void;
  onEnd(status: number): void;
  onError(error: Error): void;
}

/** The bytes of a request, built once and sent many times. */
export function requestBytes(request: HttpRequest): Buffer {
  const url = new URL(request.url);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
  return body === undefined ? head : Buffer.concat([head, body]);
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

type Framing = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailer' | 'close';

export class HttpConnection {
  readonly socket: Socket;
  #exchange: Exchange | undefined;
  #pending: Buffer | undefined;
  #framing: Framing = 'head';
  #status = 0;
  #remaining = 0;
  #keepAlive = true;
  #closed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (data: Buffer) => this.#onData(data));
    socket.on('error', () => {});
    socket.on('close', () => this.#onClose());
  }

  static open(port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<HttpConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host });
      const timer = setTimeout(() => socket.destroy(new Error(`connect timeout after ${timeoutMs} ms`)), timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeListener('error', reject);
        resolve(new HttpConnection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  get busy(): boolean {
    return this.#exchange !== undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(bytes: Buffer, exchange: Exchange): void {
    if (this.#closed) {
      exchange.onError(new Error('connection closed'));
      return;
    }
    this.#exchange = exchange;
    this.#framing = 'head';
    this.socket.write(bytes);
  }

  destroy(): void {
    this.#closed = true;
    this.#exchange = undefined;
    this.socket.destroy();
  }

  #onClose(): void {
    this.#closed = true;
    const exchange = this.#exchange;
    this.#exchange = undefined;
    if (exchange === undefined) return;
    if (this.#framing === 'close') exchange.onEnd(this.#status);
    else exchange.onError(new Error('connection closed before the response ended'));
  }

  #onData(data: Buffer): void {
    let buffer = this.#pending === undefined ? data : Buffer.concat([this.#pending, data]);
    this.#pending = undefined;
    while (buffer.length > 0 && this.#exchange !== undefined) {
      const used = this.#step(buffer);
      if (used < 0) {
        this.#pending = buffer; // an incomplete line: wait for more
        return;
      }
      buffer = buffer.subarray(used);
    }
  }

  /** Consumes part of `buffer` for the current framing state; -1 when a line is incomplete. */
  #step(buffer: Buffer): number {
    const exchange = this.#exchange!;
    switch (this.#framing) {
      case 'head': {
        const end = buffer.indexOf(HEAD_END);
        if (end < 0) return -1;
        this.#readHead(buffer.toString('latin1', 0, end));
        if ((this.#framing as Framing) === 'length' && this.#remaining === 0) this.#finish();
        return end + 4;
      }
      case 'length': {
        const take = Math.min(this.#remaining, buffer.length);
        exchange.onBody?.(buffer.subarray(0, take));
        this.#remaining -= take;
        if (this.#remaining === 0) this.#finish();
        return take;
      }
      case 'chunk-size': {
        const end = buffer.indexOf(CRLF);
        if (end < 0) return -1;
        this.#remaining = Number.parseInt(buffer.toString('latin1', 0, end), 16);
        this.#framing = this.#remaining === 0 ? 'trailer' : 'chunk-data';
        return end + 2;
      }
      case 'chunk-data': {
        const take = Math.min(this.#remaining, buffer.length);
        exchange.onBody?.(buffer.subarray(0, take));
        this.#remaining -= take;
        if (this.#remaining === 0) this.#framing = 'chunk-crlf';
        return take;
      }
      case 'chunk-crlf': {
        if (buffer.length < 2) return -1;
        this.#framing = 'chunk-size';
        return 2;
      }
      case 'trailer': {
        const end = buffer.indexOf(CRLF);
        if (end < 0) return -1;
        if (end === 0) this.#finish(); // the empty line after the last chunk (no trailers)
        return end + 2;
      }
      case 'close':
        exchange.onBody?.(buffer);
        return buffer.length;
    }
  }

  #readHead(head: string): void {
    this.#status = Number(head.slice(9, 12));
    const lower = head.toLowerCase();
    this.#keepAlive = !/\r\nconnection: *close/.test(lower);
    const length = /\r\ncontent-length: *(\d+)/.exec(lower);
    if (/\r\ntransfer-encoding: *chunked/.test(lower)) this.#framing = 'chunk-size';
    else if (length !== null) {
      this.#framing = 'length';
      this.#remaining = Number(length[1]);
    } else if (this.#status === 204 || this.#status === 304) {
      this.#framing = 'length';
      this.#remaining = 0;
    } else this.#framing = 'close';
  }

  #finish(): void {
    const exchange = this.#exchange!;
    this.#exchange = undefined;
    this.#framing = 'head';
    if (!this.#keepAlive) this.destroy();
    exchange.onEnd(this.#status);
  }
}
