import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeHeaderLines } from '../../../src/http/header-lines.ts';
import type { Headers } from '../../../src/http/respond.ts';
import { uws } from '../../../src/http/uws.ts';
import type { RateLimitState } from '../../../src/ratelimit/limiter.ts';
import { rateLimitHeaders } from '../../../src/ratelimit/rate-limit-headers.ts';
import { type ListeningApp, listenOnFreePort } from '../../helpers/uws-app.ts';

// Each path answers with its own header set, written the way every response is.
const HEADER_SETS: Record<string, Headers | undefined> = {
  '/none': undefined,
  '/anthropic': { 'x-after': 'a' },
  '/limits': { 'x-ratelimit-limit-requests': '60', 'x-ratelimit-remaining-requests': '59', 'x-ratelimit-reset-requests': '1s' },
  '/utf8': { 'x-munja-served-model': 'modèle-✓' },
  // Past the reused buffer's first size: it grows, and the lines written before stay.
  '/long': { 'x-first': 'a', 'x-long': 'b'.repeat(10_000), 'x-last': 'c' },
};
// Rate-limit states, each answered at /limits/<index>: every spelling of a duration, edges of each.
const RATE_LIMITS: RateLimitState[] = [
  { requestsLimit: 60, requestsRemaining: 59, requestsResetMs: 1_000, tokensLimit: 100_000, tokensRemaining: 99_000, tokensResetMs: 600 },
  { requestsLimit: 0, requestsRemaining: 0, requestsResetMs: 0, tokensLimit: 1, tokensRemaining: 0, tokensResetMs: 0.2 },
  { requestsLimit: 2_000_000_000, requestsRemaining: 1_999_999_999, requestsResetMs: 999.01, tokensLimit: 9_007_199_254_740_991, tokensRemaining: 10, tokensResetMs: 1_000.5 },
  { requestsLimit: 5, requestsRemaining: 4, requestsResetMs: 59_999, tokensLimit: 5, tokensRemaining: 4, tokensResetMs: 60_000 },
  { requestsLimit: 5, requestsRemaining: 4, requestsResetMs: 3_599_001, tokensLimit: 5, tokensRemaining: 4, tokensResetMs: 3_600_000 },
  { requestsLimit: 5, requestsRemaining: 4, requestsResetMs: 90_061_000, tokensLimit: 5, tokensRemaining: 4, tokensResetMs: 86_400_000 * 30 },
];
let listening: ListeningApp;

beforeAll(async () => {
  const app = uws.App();
  app.get('/*', (res, req) => {
    const path = req.getUrl();
    const limits = path.startsWith('/limits/') ? RATE_LIMITS[Number(path.slice('/limits/'.length))]! : null;
    res.writeStatus('200 OK');
    writeHeaderLines(res, 'application/json', 'req_0123', limits, limits === null ? HEADER_SETS[path] : { 'x-after': 'a' }, path === '/anthropic');
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

  it('writes the request id a second time as request-id, where Anthropic\'s clients read it', async () => {
    expect(await headLines('/anthropic')).toEqual(['content-type: application/json', 'x-request-id: req_0123', 'request-id: req_0123', 'x-after: a']);
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

  it('writes rate limits exactly as rateLimitHeaders() spells them, before the other headers', async () => {
    for (const [index, limits] of RATE_LIMITS.entries()) {
      const expected = Object.entries(rateLimitHeaders({ allowed: true, retryAfterMs: 0, limitedBy: null, lease: null, degraded: false, ...limits }));
      expect(await headLines(`/limits/${index}`)).toEqual([
        'content-type: application/json',
        'x-request-id: req_0123',
        ...expected.map(([name, value]) => `${name}: ${value}`),
        'x-after: a',
      ]);
    }
  });
});
