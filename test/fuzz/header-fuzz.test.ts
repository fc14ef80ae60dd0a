// Fuzzing request lines and header blocks over raw sockets (seeded, bounded; longer runs by env:
// FUZZ_SEED, HEADER_FUZZ_ITERATIONS). Whatever the bytes, every connection is answered or closed
// within a hang guard (a server still waiting for the rest of a request must close once the client
// sends FIN), every status is one the service documents or uWS's own 431/505, every JSON error is
// in the error shape, and a normal request is served after each batch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../src/engine/prng.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { exchange, type WireExchange } from '../helpers/raw-socket.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const ITERATIONS = Number(process.env.HEADER_FUZZ_ITERATIONS ?? 400);
const CONCURRENCY = 12;
const BATCH = 60;
// Nothing back this long after the request: FIN is sent, and the server must then close within the guard.
const HALF_CLOSE_AFTER_MS = 400;
const GUARD_MS = 5_000;
// SPEC §7 statuses this service uses, 2xx for requests that survive mutation, and uWS's own 431
// (header block too large) and 505 (request line it cannot parse). Never a 500.
const ALLOWED = new Set([200, 400, 401, 403, 404, 405, 408, 413, 429, 431, 505]);

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { bodyTimeoutMs: 300, maxBodyBytes: 64 * 1024 } });
  ({ key } = await gateway.createKey({ rpm: 1_000_000, tpm: 1_000_000_000 }));
});
afterAll(() => gateway.close());

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const int = (random: Random, max: number): number => Math.floor(random() * max);

interface Draft {
  method: string;
  target: string;
  version: string;
  headers: Array<[string, string]>;
  body: string;
}

function seeds(): Draft[] {
  const chat = chatBody();
  const auth: [string, string] = ['Authorization', `Bearer ${key}`];
  return [
    { method: 'GET', target: '/health', version: 'HTTP/1.1', headers: [['Host', 'x']], body: '' },
    { method: 'GET', target: '/v1/models', version: 'HTTP/1.1', headers: [['Host', 'x'], auth], body: '' },
    { method: 'HEAD', target: '/v1/models/fast', version: 'HTTP/1.1', headers: [['Host', 'x'], auth], body: '' },
    { method: 'POST', target: '/v1/chat/completions', version: 'HTTP/1.1',
      headers: [['Host', 'x'], auth, ['Content-Type', 'application/json'], ['Content-Length', String(chat.length)]], body: chat },
    { method: 'POST', target: '/v1/chat/completions', version: 'HTTP/1.1',
      headers: [['Host', 'x'], auth, ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']],
      body: `${chat.length.toString(16)}\r\n${chat}\r\n0\r\n\r\n` },
    { method: 'OPTIONS', target: '/mcp', version: 'HTTP/1.1', headers: [['Host', 'x'], ['Origin', 'https://evil.example']], body: '' },
  ];
}

const METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'PRI', 'get', 'G ET', '', 'GET\0', 'X'.repeat(300), '\u00e9T'];
const TARGETS = ['/', '*', '/v1/chat/completions', '/v1/chat/completions/', '//v1/models', '/v1/models/%00', 'http://x/health', '/health?x=1', '', ' ', '/\0', '/\r', `/${'a'.repeat(5_000)}`, '/v1/models/\u00ff', '/dashboard/../v1/models'];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/0.9', 'HTTP/2', 'HTTP/2.0', 'HTTP/1.10', 'http/1.1', 'HTTP/1.1 ', '', 'HTTP/9.9', 'HTTP/1.1x', 'HTTP/1'];
const NAMES = ['Content-Length', 'Transfer-Encoding', 'Host', 'Connection', 'Expect', 'Upgrade', 'Authorization', 'Content-Type', 'Cookie', 'Origin', 'X-Forwarded-For', 'TE', 'Trailer'];
const VALUES = ['0', '-1', '99999999999999999999', '1, 1', '+5', '0x10', 'chunked', 'chunked, identity', 'identity', 'gzip, chunked', 'close', 'keep-alive, Upgrade', 'websocket', '100-continue',
  'Bearer ', 'Bearer sk_munja_x', 'application/json; charset=latin1', '', ' ', '\t', 'a\0b', 'a\rb', 'a\nb', '\u00ff\u00fe', 'x'.repeat(5_000)];
const GARBAGE_NAMES = ['', ' ', 'X Space', 'X:Colon', 'X\0Nul', 'X\tTab', '\u00e9', 'Content-Length ', ' Content-Length', '(){}', 'X-'.repeat(500)];

function mutateDraft(draft: Draft, random: Random): void {
  const edits = 1 + int(random, 3);
  for (let i = 0; i < edits; i++) {
    const kind = int(random, 14);
    const headers = draft.headers;
    switch (kind) {
      case 0: draft.method = pick(random, METHODS); break;
      case 1: draft.target = pick(random, TARGETS); break;
      case 2: draft.version = pick(random, VERSIONS); break;
      case 3: if (headers.length > 0) headers.push([...headers[int(random, headers.length)]!]); break; // duplicate
      case 4: if (headers.length > 0) headers.splice(int(random, headers.length), 1); break;
      case 5: headers.push([pick(random, NAMES), pick(random, VALUES)]); break;
      case 6: headers.push([pick(random, GARBAGE_NAMES), pick(random, VALUES)]); break;
      case 7: headers.push([`X-Big-${i}`, 'v'.repeat(1 + int(random, 9_000))]); break;
      case 8: for (let n = int(random, 150); n > 0; n--) headers.push([`X-Many-${n}`, 'v']); break;
      case 9: if (headers.length > 0) headers[int(random, headers.length)]![1] = pick(random, VALUES); break;
      case 10: headers.push([' obs-fold', 'continued']); break; // serialises as a continuation line
      case 11: draft.body = draft.body.slice(0, int(random, draft.body.length + 1)); break;
      case 12: draft.body += pick(random, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n', '0\r\n\r\n', 'x'.repeat(100)]); break;
      default: headers.reverse();
    }
  }
}

function serialise(draft: Draft): Buffer {
  const lines = [`${draft.method} ${draft.target} ${draft.version}`];
  for (const [name, value] of draft.headers) lines.push(name.startsWith(' ') ? `${name}${value}` : `${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${draft.body}`, 'latin1');
}

function mutateBytes(bytes: Buffer, random: Random): Buffer {
  let out = bytes;
  const at = () => int(random, out.length + 1);
  switch (int(random, 6)) {
    case 0: { // CRLF → LF or CR somewhere
      const index = out.indexOf('\r\n', at());
      if (index === -1) break;
      out = Buffer.concat([out.subarray(0, index), Buffer.from(random() < 0.5 ? '\n' : '\r'), out.subarray(index + 2)]);
      break;
    }
    case 1: out = out.subarray(0, at()); break; // truncated
    case 2: { const i = at(); out = Buffer.concat([out.subarray(0, i), Buffer.from([int(random, 256)]), out.subarray(i)]); break; }
    case 3: { const i = at(); out = Buffer.concat([out.subarray(0, i), out.subarray(i + 1 + int(random, 8))]); break; }
    case 4: { const i = at(); out = Buffer.concat([out.subarray(0, i), out.subarray(i, i + 32), out.subarray(i)]); break; }
    default: if (out.length > 0) { out = Buffer.from(out); out[int(random, out.length)] = int(random, 256); }
  }
  return out;
}

/** The bytes to send, and which of the requests in them are HEAD (their answers have no body). */
function generate(random: Random): { bytes: Buffer; heads: boolean[] } {
  const base = seeds();
  const draft = structuredClone(pick(random, base));
  if (random() < 0.85) mutateDraft(draft, random);
  let bytes = serialise(draft);
  const heads = [draft.method === 'HEAD'];
  if (random() < 0.35) bytes = mutateBytes(bytes, random);
  if (random() < 0.1) { // pipelined
    const next = pick(random, base);
    bytes = Buffer.concat([bytes, serialise(next)]);
    heads.push(next.method === 'HEAD');
  }
  return { bytes, heads };
}

interface Tally {
  answered: number;
  closedUnanswered: number;
  halfClosed: number;
  statuses: Map<number, number>;
}

function check(result: WireExchange, bytes: Buffer, heads: readonly boolean[], tally: Tally): void {
  const where = `request ${JSON.stringify(bytes.toString('latin1').slice(0, 300))}`;
  if (result.hung) throw new Error(`no answer and no close within ${GUARD_MS} ms (FIN sent: ${result.halfClosed}) for ${where}`);
  if (result.responses.length > 0) tally.answered++;
  else tally.closedUnanswered++;
  if (result.halfClosed) tally.halfClosed++;
  for (const [index, response] of result.responses.entries()) {
    tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
    if (!ALLOWED.has(response.status)) throw new Error(`status ${response.status} for ${where}`);
    if (response.status >= 400 && heads[index] !== true && response.headers['content-type']?.startsWith('application/json')) {
      const body = JSON.parse(response.body.toString('utf8')) as { error?: { code?: unknown } };
      if (typeof body.error?.code !== 'string') throw new Error(`a ${response.status} not in the error shape for ${where}`);
    }
  }
}

async function normalRequestWorks(): Promise<void> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(),
  });
  await response.text();
  expect(response.status).toBe(200);
}

describe('request lines and headers, fuzzed over raw sockets', () => {
  it(`answers or closes ${ITERATIONS} mutated requests in the documented statuses (seed ${SEED})`, { timeout: 120_000 }, async () => {
    const random = createRandom(SEED);
    const tally: Tally = { answered: 0, closedUnanswered: 0, halfClosed: 0, statuses: new Map() };
    for (let done = 0; done < ITERATIONS;) {
      const batch = Array.from({ length: Math.min(BATCH, ITERATIONS - done) }, () => generate(random));
      for (let i = 0; i < batch.length; i += CONCURRENCY) {
        const slice = batch.slice(i, i + CONCURRENCY);
        const results = await Promise.all(slice.map(({ bytes, heads }) =>
          exchange(gateway.port, bytes, { guardMs: GUARD_MS, quietMs: 150, halfCloseAfterMs: HALF_CLOSE_AFTER_MS, heads })));
        results.forEach((result, index) => check(result, slice[index]!.bytes, slice[index]!.heads, tally));
      }
      done += batch.length;
      await normalRequestWorks();
    }
    const summary = `${ITERATIONS} requests, ${tally.answered} answered, ${tally.closedUnanswered} closed unanswered, ${tally.halfClosed} needed FIN; statuses ${JSON.stringify(Object.fromEntries([...tally.statuses].sort((a, b) => a[0] - b[0])))}`;
    // The mutations must reach the handlers and the parser's refusals both, or the fuzzer tests little.
    expect(tally.statuses.get(200) ?? 0, summary).toBeGreaterThan(ITERATIONS / 50);
    expect((tally.statuses.get(400) ?? 0) + (tally.statuses.get(505) ?? 0), summary).toBeGreaterThan(ITERATIONS / 20);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
