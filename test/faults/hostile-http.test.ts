// Hostile request heads over raw sockets: oversized and over-many headers (HR-15), HEAD and OPTIONS
// on every route, and routing edges (HR-13). Each answer is prompt, in the expected status, never
// a hang; nothing reaches the model server; the next request on a new connection is served.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import { type RelayGateway, startRelayGateway } from '../helpers/relay-gateway.ts';
import { errorCodeOf, exchange, httpRequest, type WireExchange } from '../helpers/raw-socket.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;
let relay: RelayGateway;

beforeAll(async () => {
  relay = await startRelayGateway();
  ({ mock, gateway, key } = relay);
});
afterAll(async () => {
  await relay.close();
});
beforeEach(() => mock.reset());
afterEach(async () => {
  // Still up: a normal request on a new connection is answered.
  const result = await exchange(gateway.port, httpRequest('GET /v1/models HTTP/1.1', ['Host: x', `Authorization: Bearer ${key}`]), { quietMs: 200 });
  expect(result.responses.map((response) => response.status)).toEqual([200]);
});

const CHAT = chatBody({ model: 'up' });

function statuses(result: WireExchange): number[] {
  return result.responses.map((response) => response.status);
}

function manyHeaders(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `X-Filler-${index}: v`);
}

describe('header limits (uWS: 4 KiB head, 98 header lines; see src/http/uws.ts)', () => {
  // uWS answers these itself with 431 and closes, before any handler runs. Older uWS.js builds hung
  // 8–10 s on too many headers and then sent an empty reply; the guard here is 5 s.
  it.each([
    ['one 8 KiB header', httpRequest('GET /health HTTP/1.1', ['Host: x', `X-Big: ${'a'.repeat(8 * 1024)}`])],
    ['101 headers', httpRequest('GET /health HTTP/1.1', ['Host: x', ...manyHeaders(100)])],
    ['1,000 headers', httpRequest('GET /health HTTP/1.1', ['Host: x', ...manyHeaders(999)])],
    ['a 10 KB Authorization header', httpRequest('GET /v1/models HTTP/1.1', ['Host: x', `Authorization: Bearer sk_munja_${'a'.repeat(10_000)}`])],
    ['a chat request with 101 headers', httpRequest('POST /v1/chat/completions HTTP/1.1', [
      'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${CHAT.length}`, ...manyHeaders(97),
    ], CHAT)],
    ['an 8 KB request target', httpRequest(`GET /health?${'q'.repeat(8_000)} HTTP/1.1`, ['Host: x'])],
  ])('%s → 431 and close, at once', async (_name, request) => {
    const result = await exchange(gateway.port, request);
    expect(result.hung).toBe(false);
    expect(result.closed).toBe(true);
    expect(statuses(result)).toEqual([431]);
    expect(mock.requests).toHaveLength(0);
  });

  it.each([
    ['a 3,000-byte header', httpRequest('GET /health HTTP/1.1', ['Host: x', `X-Big: ${'a'.repeat(3_000)}`])],
    ['50 headers', httpRequest('GET /health HTTP/1.1', ['Host: x', ...manyHeaders(49)])],
  ])('%s (within the limits) is served', async (_name, request) => {
    expect(statuses(await exchange(gateway.port, request, { quietMs: 200 }))).toEqual([200]);
  });
});

describe('HEAD and OPTIONS on every route', () => {
  // HEAD: what GET would answer (405 where GET is not allowed), never a body.
  it.each([
    ['/v1/chat/completions', 405, 'POST'],
    ['/v1/models', 200, null],
    ['/v1/models/fast', 200, null],
    ['/v1/models/nope', 404, null],
    ['/health', 200, null],
    ['/readyz', 200, null],
    ['/mcp', 405, 'POST, OPTIONS'],
    ['/dashboard', 200, null],
    ['/dashboard/api/me', 401, null],
    ['/nope', 404, null],
  ])('HEAD %s → %i, headers only', async (path, status, allow) => {
    const result = await exchange(gateway.port, httpRequest(`HEAD ${path} HTTP/1.1`, ['Host: x', `Authorization: Bearer ${key}`]), { quietMs: 150, heads: [true] });
    expect(statuses(result)).toEqual([status]);
    expect(result.rest.length).toBe(0); // a body would be left over here
    const [response] = result.responses;
    expect(Number(response!.headers['content-length'])).toBeGreaterThan(0);
    if (allow !== null) expect(response!.headers.allow).toBe(allow);
  });

  // OPTIONS is not a CORS preflight anywhere under /v1 (keys belong in server-side code): 405 in
  // the error shape with Allow, like any other method a path does not take, and no
  // Access-Control-* header even for a browser's preflight.
  it.each([
    ['/v1/chat/completions', 'POST'],
    ['/v1/models', 'GET, HEAD'],
    ['/v1/models/fast', 'GET, HEAD'],
    ['/health', 'GET, HEAD'],
    ['/readyz', 'GET, HEAD'],
    ['/dashboard', 'GET, HEAD'],
  ])('OPTIONS %s → 405 with Allow %s, no CORS grant', async (path, allow) => {
    const result = await exchange(gateway.port, httpRequest(`OPTIONS ${path} HTTP/1.1`, [
      'Host: x', 'Origin: https://evil.example', 'Access-Control-Request-Method: POST', 'Access-Control-Request-Headers: authorization',
    ]), { quietMs: 150 });
    expect(statuses(result)).toEqual([405]);
    const [response] = result.responses;
    expect(errorCodeOf(response)).toBe('method_not_allowed');
    expect(response!.headers.allow).toBe(allow);
    expect(Object.keys(response!.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('OPTIONS on an unknown path → 404 unknown_route', async () => {
    const result = await exchange(gateway.port, httpRequest('OPTIONS /v1/nope HTTP/1.1', ['Host: x']), { quietMs: 150 });
    expect(statuses(result)).toEqual([404]);
    expect(errorCodeOf(result.responses[0])).toBe('unknown_route');
  });

  it('OPTIONS /mcp from a foreign origin grants nothing', async () => {
    const result = await exchange(gateway.port, httpRequest('OPTIONS /mcp HTTP/1.1', [
      'Host: x', 'Origin: https://evil.example', 'Access-Control-Request-Method: POST',
    ]), { quietMs: 150 });
    expect(statuses(result)).toEqual([403]);
    expect(result.responses[0]!.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('OPTIONS * (asterisk form) is refused by uWS with its own 505 and a close, not a hang', async () => {
    const result = await exchange(gateway.port, httpRequest('OPTIONS * HTTP/1.1', ['Host: x']));
    expect(result.closed).toBe(true);
    expect(statuses(result)).toEqual([505]);
  });
});

describe('routing edges', () => {
  // Paths are matched exactly as sent: no case folding, no slash or dot-segment normalisation,
  // no percent-decoding. A near miss is a 404, never another handler.
  it.each([
    '/v1/chat/completions/',
    '//v1/chat/completions',
    '/v1/chat%2Fcompletions',
    '/V1/chat/completions',
    '/v1/v1/chat/completions',
    '/chat/completions',
    '/v1/chat/completions;x',
    '/v1/chat/completions%00',
    '/v1/chat/completions%20',
    '/v1/./chat/completions',
    '/v1/models/../chat/completions',
    '/%2e%2e/v1/chat/completions',
    '/v1/models/',
    '/v1/models/fast/',
    '/health/',
  ])('POST %s → 404 unknown_route, nothing forwarded', async (path) => {
    const result = await exchange(gateway.port, httpRequest(`POST ${path} HTTP/1.1`, [
      'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${CHAT.length}`,
    ], CHAT), { quietMs: 150 });
    expect(statuses(result)).toEqual([404]);
    expect(errorCodeOf(result.responses[0])).toBe('unknown_route');
    expect(mock.requests).toHaveLength(0);
  });

  it.each(['http://x/v1/chat/completions', '/v1/chat/completions\t'])(
    'request target %j: refused by uWS (505) and closed, nothing forwarded', async (target) => {
      const result = await exchange(gateway.port, httpRequest(`POST ${target} HTTP/1.1`, [
        'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${CHAT.length}`,
      ], CHAT));
      expect(result.closed).toBe(true);
      expect(statuses(result)).toEqual([505]);
      expect(mock.requests).toHaveLength(0);
    },
  );
});
