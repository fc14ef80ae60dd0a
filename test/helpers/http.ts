// Small HTTP helpers for tests that need exact control over what is sent.
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly raw: string;
}

/** Sends bytes on a fresh TCP connection and collects what comes back until the server closes or goes quiet. */
export function rawRequest(port: number, payload: string | Buffer, quietMs = 300): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRaw(Buffer.concat(chunks).toString('utf8')));
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    });
    socket.on('end', finish);
    socket.on('error', (error) => (chunks.length ? finish() : reject(error)));
    socket.write(payload);
  });
}

function parseRaw(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = split === -1 ? '' : raw.slice(split + 4);
  return { status: Number(statusLine.split(' ')[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body, raw };
}

/** The data of a chunked body, as far as it arrived (a refusal's end may still be held back). */
function dechunk(body: string): string {
  let data = '';
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd === -1) return data;
    const size = Number.parseInt(body.slice(offset, lineEnd), 16);
    if (!(size > 0)) return data;
    data += body.slice(lineEnd + 2, lineEnd + 2 + size);
    offset = lineEnd + 2 + size + 2;
  }
}

export function chatBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'Hello there' }], ...overrides });
}
