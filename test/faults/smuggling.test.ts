// Request smuggling over raw sockets (HR-14): every framing that a proxy in front and the gateway
// could read differently is refused with 400 (uWS's own 505 for bare-LF lines) and a closed
// connection, and a sentinel request written right behind it never reaches the model server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import type { MockUpstream } from '../helpers/mock-upstream.ts';
import { type RelayGateway, startRelayGateway } from '../helpers/relay-gateway.ts';
import { errorCodeOf, exchange, httpRequest } from '../helpers/raw-socket.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;
let relay: RelayGateway;

beforeAll(async () => {
  relay = await startRelayGateway({ server: { bodyTimeoutMs: 2_000 } });
  ({ mock, gateway, key } = relay);
});
afterAll(async () => {
  await relay.close();
});
beforeEach(() => mock.reset());

const BODY = chatBody({ model: 'up', messages: [{ role: 'user', content: 'first' }] });
const SENTINEL_BODY = chatBody({ model: 'up', messages: [{ role: 'user', content: 'SENTINEL' }] });

function head(...extra: string[]): string[] {
  return ['Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', ...extra];
}

function sentinel(): string {
  return httpRequest('POST /v1/chat/completions HTTP/1.1', head(`Content-Length: ${SENTINEL_BODY.length}`), SENTINEL_BODY);
}

function chunked(body: string): string {
  return `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

const POST = 'POST /v1/chat/completions HTTP/1.1';

interface Variant {
  readonly name: string;
  readonly request: () => string;
  /** The refusal is the gateway's own (error shape, `malformed_request`), not uWS's. */
  readonly ours: boolean;
  readonly statuses: readonly number[];
}

const VARIANTS: readonly Variant[] = [
  { name: 'Content-Length with Transfer-Encoding: chunked', ours: false, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${chunked(BODY).length}`, 'Transfer-Encoding: chunked'), chunked(BODY)) },
  { name: 'Transfer-Encoding: chunked, then Content-Length', ours: false, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding: chunked', `Content-Length: ${BODY.length}`), chunked(BODY)) },
  { name: 'two differing Content-Length', ours: true, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}`, 'Content-Length: 5'), BODY) },
  { name: 'two equal Content-Length', ours: true, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}`, `Content-Length: ${BODY.length}`), BODY) },
  { name: 'Content-Length as a list', ours: false, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}, ${BODY.length}`), BODY) },
  { name: 'Transfer-Encoding : chunked (space before the colon)', ours: false, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding : chunked'), chunked(BODY)) },
  { name: 'Transfer-Encoding: chunked, identity', ours: true, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding: chunked, identity'), chunked(BODY)) },
  { name: 'Transfer-Encoding: identity, chunked', ours: true, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding: identity, chunked'), chunked(BODY)) },
  { name: 'Transfer-Encoding: xchunked', ours: true, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding: xchunked'), chunked(BODY)) },
  { name: 'Transfer-Encoding sent twice', ours: true, statuses: [400],
    request: () => httpRequest(POST, head('Transfer-Encoding: chunked', 'Transfer-Encoding: identity'), chunked(BODY)) },
  { name: 'tab-prefixed Transfer-Encoding line', ours: false, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}`, '\tTransfer-Encoding: chunked'), BODY) },
  { name: 'obs-fold continuation line', ours: false, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}`, 'X-Folded: a', ' continued'), BODY) },
  { name: 'obs-fold completing Transfer-Encoding', ours: false, statuses: [400],
    request: () => httpRequest(POST, head(`Content-Length: ${BODY.length}`, 'Transfer-Encoding: identity', ' chunked'), BODY) },
  // uWS answers a request whose lines all end in bare LF with its own 505 (it cannot find the version).
  { name: 'bare LF line endings', ours: false, statuses: [400, 505],
    request: () => `${POST}\n${head(`Content-Length: ${BODY.length}`).join('\n')}\n\n${BODY}` },
  { name: 'one header ending in bare LF', ours: false, statuses: [400],
    request: () => `${POST}\r\nHost: x\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}` },
];

/** A normal request on a new connection is answered, and the mock saw only it since the last reset. */
async function expectStillServing(): Promise<void> {
  const body = chatBody({ model: 'up', messages: [{ role: 'user', content: 'after' }] });
  const after = await exchange(gateway.port, httpRequest(POST, head(`Content-Length: ${body.length}`), body), { quietMs: 200 });
  expect(after.responses.map((response) => response.status)).toEqual([200]);
  const contents = mock.requests.map((request) => JSON.stringify(request.body));
  expect(contents.filter((content) => content.includes('SENTINEL'))).toEqual([]);
  expect(contents).toHaveLength(1);
}

describe('request smuggling', () => {
  it.each(VARIANTS)('$name → refused, connection closed', async (variant) => {
    const result = await exchange(gateway.port, variant.request());
    expect(result.hung).toBe(false);
    expect(result.closed).toBe(true);
    expect(result.responses).toHaveLength(1);
    const [response] = result.responses;
    expect(variant.statuses).toContain(response!.status);
    expect(response!.headers.connection).toBe('close');
    if (variant.ours) expect(errorCodeOf(response)).toBe('malformed_request');
    expect(mock.requests).toHaveLength(0);
    await expectStillServing();
  });

  it.each(VARIANTS)('$name + a pipelined sentinel → the sentinel never reaches the model server', async (variant) => {
    const result = await exchange(gateway.port, variant.request() + sentinel());
    expect(result.hung).toBe(false);
    expect(result.closed).toBe(true);
    // The refusal, or (when uWS sees the sentinel before the refusal is sent) a bare close.
    for (const response of result.responses) expect(variant.statuses).toContain(response.status);
    expect(mock.requests).toHaveLength(0);
    await expectStillServing();
  });

  it('control: a sentinel behind a request answered at once does reach the model server', async () => {
    const result = await exchange(gateway.port, httpRequest('GET /health HTTP/1.1', ['Host: x']) + sentinel(), { quietMs: 300 });
    expect(result.responses.map((response) => response.status)).toEqual([200, 200]);
    expect(mock.requests.map((request) => JSON.stringify(request.body)).some((content) => content.includes('SENTINEL'))).toBe(true);
  });

  it('a request hidden in the body of another is body, not a request', async () => {
    const hidden = sentinel();
    const result = await exchange(gateway.port, httpRequest('GET /health HTTP/1.1', ['Host: x', `Content-Length: ${hidden.length}`], hidden), { quietMs: 300 });
    expect(result.responses.map((response) => response.status)).toEqual([200]);
    expect(mock.requests).toHaveLength(0);
    await expectStillServing();
  });

  it('Transfer-Encoding: chunked alone (any case, tab before the value) is accepted', async () => {
    for (const value of ['chunked', 'Chunked', '\tchunked']) {
      mock.reset();
      const result = await exchange(gateway.port, httpRequest(POST, head(`Transfer-Encoding: ${value}`), chunked(BODY)), { quietMs: 200 });
      expect(result.responses.map((response) => response.status)).toEqual([200]);
      expect(mock.requests).toHaveLength(1);
    }
  });
});
