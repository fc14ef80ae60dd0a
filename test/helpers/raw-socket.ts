// A wire-level client for hostile-HTTP tests: sends exact bytes (all at once or dribbled), then
// reads every response the server sends until it closes the connection, goes quiet, or a hang
// guard runs out. Ordinary HTTP clients normalise bad input away; this one sends it as written.
import { connect, type Socket } from 'node:net';

export interface WireResponse {
  readonly status: number;
  /** Header names lowercased; a repeated header keeps its last value. */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export interface WireExchange {
  /** Complete responses, in order. */
  readonly responses: WireResponse[];
  /** Bytes after the last complete response (a truncated one). */
  readonly rest: Buffer;
  /** The server closed (FIN or reset) before the guard ran out. */
  readonly closed: boolean;
  /** Neither a close nor the quiet period ended the wait: the guard did. */
  readonly hung: boolean;
  /** The client half-closed the connection (halfCloseAfterMs) because nothing had come back. */
  readonly halfClosed: boolean;
  /** From the first byte written to the end of the wait. */
  readonly elapsedMs: number;
}

export interface WireOptions {
  /** Hang guard: stop waiting after this long. Default 5 s. */
  readonly guardMs?: number;
  /** Stop once the connection has been silent this long after the first response byte; 0 waits for a close. Default 0. */
  readonly quietMs?: number;
  /** Responses to these requests have no body (HEAD), in request order. */
  readonly heads?: readonly boolean[];
  /** Sends the payload in pieces of this many bytes… */
  readonly dribbleBytes?: number;
  /** …one piece every this many ms… */
  readonly dribbleEveryMs?: number;
  /** …after sending the first this many bytes at once (e.g. the head, to dribble only the body). */
  readonly dribbleFrom?: number;
  /**
   * When nothing has come back this long after the payload was sent, send FIN: a server still
   * waiting for the rest of a request must then close. Default: never.
   */
  readonly halfCloseAfterMs?: number;
}

/** Opens a TCP connection to 127.0.0.1:port and resolves once connected. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export async function exchange(port: number, payload: string | Buffer, options: WireOptions = {}): Promise<WireExchange> {
  const socket = await openSocket(port);
  return talk(socket, payload, options);
}

/** Like exchange, on a socket the caller opened (it is destroyed at the end). */
export function talk(socket: Socket, payload: string | Buffer, options: WireOptions = {}): Promise<WireExchange> {
  const { guardMs = 5_000, quietMs = 0, dribbleBytes = 0, dribbleEveryMs = 0 } = options;
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'latin1') : payload;
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let quiet: NodeJS.Timeout | undefined;
    let dribble: NodeJS.Timeout | undefined;
    let halfClose: NodeJS.Timeout | undefined;
    let halfClosed = false;
    let settled = false;
    const finish = (closed: boolean, hung: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      clearTimeout(quiet);
      clearInterval(dribble);
      clearTimeout(halfClose);
      socket.destroy();
      const { responses, rest } = parseResponses(Buffer.concat(chunks), options.heads ?? []);
      resolve({ responses, rest, closed, hung, halfClosed, elapsedMs: performance.now() - started });
    };
    const guard = setTimeout(() => finish(false, true), guardMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(halfClose);
      if (quietMs > 0) {
        clearTimeout(quiet);
        quiet = setTimeout(() => finish(false, false), quietMs);
      }
    });
    socket.on('end', () => finish(true, false));
    socket.on('close', () => finish(true, false));
    socket.on('error', () => finish(true, false));
    if (options.halfCloseAfterMs !== undefined) {
      halfClose = setTimeout(() => {
        halfClosed = true;
        socket.end();
      }, options.halfCloseAfterMs);
    }
    if (dribbleBytes <= 0) {
      socket.write(bytes);
      return;
    }
    let offset = options.dribbleFrom ?? 0;
    if (offset > 0) socket.write(bytes.subarray(0, offset));
    const sendPiece = () => {
      if (offset >= bytes.length || socket.destroyed) return clearInterval(dribble);
      socket.write(bytes.subarray(offset, offset + dribbleBytes));
      offset += dribbleBytes;
    };
    sendPiece();
    dribble = setInterval(sendPiece, dribbleEveryMs);
  });
}

/** Splits a byte stream into HTTP/1.1 responses framed by Content-Length or chunked encoding. */
export function parseResponses(data: Buffer, heads: readonly boolean[] = []): { responses: WireResponse[]; rest: Buffer } {
  const responses: WireResponse[] = [];
  let offset = 0;
  for (;;) {
    const headEnd = data.indexOf('\r\n\r\n', offset, 'latin1');
    if (headEnd === -1) break;
    const [statusLine = '', ...lines] = data.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(statusLine.split(' ')[1]);
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (heads[responses.length] === true || status === 204 || status === 304) {
      body = Buffer.alloc(0);
    } else if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const parts: Buffer[] = [];
      let complete = false;
      for (;;) {
        const sizeEnd = data.indexOf('\r\n', bodyStart, 'latin1');
        if (sizeEnd === -1) break;
        const size = Number.parseInt(data.subarray(bodyStart, sizeEnd).toString('latin1'), 16);
        if (Number.isNaN(size) || data.length < sizeEnd + 2 + size + 2) break;
        parts.push(data.subarray(sizeEnd + 2, sizeEnd + 2 + size));
        bodyStart = sizeEnd + 2 + size + 2;
        if (size === 0) { complete = true; break; }
      }
      if (!complete) break;
      body = Buffer.concat(parts);
    } else if (headers['content-length'] === undefined) {
      // No framing (uWS's own error pages): the body runs to the close.
      body = data.subarray(bodyStart);
      bodyStart = data.length;
    } else {
      const length = Number(headers['content-length']);
      if (data.length < bodyStart + length) break;
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    responses.push({ status, headers, body });
    offset = bodyStart;
  }
  return { responses, rest: data.subarray(offset) };
}

/** The `error.code` of a response in the error shape; undefined if the body is not one. */
export function errorCodeOf(response: WireResponse | undefined): string | undefined {
  if (response === undefined) return undefined;
  try {
    return (JSON.parse(response.body.toString('utf8')) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** A request head (CRLF line endings) followed by the body. */
export function httpRequest(requestLine: string, headers: readonly string[], body = ''): string {
  return `${requestLine}\r\n${headers.map((header) => `${header}\r\n`).join('')}\r\n${body}`;
}
