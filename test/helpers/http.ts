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
  return { status: Number(statusLine.split(' ')[1]), headers, body: split === -1 ? '' : raw.slice(split + 4), raw };
}

export function chatBody(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'Hello there' }], ...overrides });
}
