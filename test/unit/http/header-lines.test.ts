import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHeaderLines } from '../../../src/http/header-lines.ts';
import type { Headers } from '../../../src/http/respond.ts';
import { uws } from '../../../src/http/uws.ts';
import { type ListeningApp, listenOnFreePort } from '../../helpers/uws-app.ts';

// Each path answers with its own header set, written the way every response is.
const HEADER_SETS: Record<string, Headers | undefined> = {
  '/none': undefined,
  '/limits': { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s' },
  '/utf8': { 'x-munja-served-model': 'modèle-✓' },
  // Past the reused buffer's first size: it grows, and the lines written before stay.
  '/long': { 'x-first': 'a', 'x-long': 'b'.repeat(10_000), 'x-last': 'c' },
};
let listening: ListeningApp;

beforeAll(async () => {
  const app = uws.App();
  app.get('/*', (res, req) => {
    const headers = HEADER_SETS[req.getUrl()];
    res.writeStatus('200 OK');
    writeHeaderLines(res, 'application/json', 'req_0123', headers);
    res.end('{}');
  });
  listening = await listenOnFreePort(app);
});

afterAll(() => listening.close());

/** The response head's header lines, as the bytes on the wire (UTF-8), without the Date line uWS adds. */
function headLines(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(listening.port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n').slice(1);
      resolve(head.filter((line) => !/^(date|content-length|connection):/i.test(line)));
    });
  });
}

describe('writeHeaderLines', () => {
  it('writes the content type and the request id', async () => {
    expect(await headLines('/none')).toEqual(['content-type: application/json', 'x-request-id: req_0123']);
  });

  it('writes every header as its own line, in order', async () => {
    expect(await headLines('/limits')).toEqual([
      'content-type: application/json',
      'x-request-id: req_0123',
      'x-ratelimit-limit-requests: 60',
      'x-ratelimit-remaining-requests: 59',
      'x-ratelimit-reset-requests: 1s',
    ]);
  });

  it('encodes a value beyond ASCII as UTF-8', async () => {
    expect(await headLines('/utf8')).toContain('x-munja-served-model: modèle-✓');
  });

  it('grows its buffer for a block past its size without losing what came before', async () => {
    expect(await headLines('/long')).toEqual(['content-type: application/json', 'x-request-id: req_0123', 'x-first: a', `x-long: ${'b'.repeat(10_000)}`, 'x-last: c']);
  });
});
