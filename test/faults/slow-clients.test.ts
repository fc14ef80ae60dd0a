// Slow clients (HR-16, HR-17): a body sent at ~1 KB/s is answered 408 `request_timeout` at the
// body timeout and closed; a head dribbled byte by byte (slowloris), a head uWS can never finish
// (a bare CR) and a silent connection are closed by uWS's own idle timeout, which dribbling does
// not extend. While any of these are open, normal requests are answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { errorCodeOf, exchange, httpRequest, type WireExchange } from '../helpers/raw-socket.ts';

const BODY_TIMEOUT_MS = 2_000;
// uWS closes a connection that has not sent a whole head after its idle timeout: measured at
// ~31.5 s with this build (the same for a silent, a dribbling and an idle keep-alive connection).
const UWS_IDLE_GUARD_MS = 45_000;

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { bodyTimeoutMs: BODY_TIMEOUT_MS } });
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

function slowBody(): Promise<WireExchange> {
  const body = chatBody({ messages: [{ role: 'user', content: 'x'.repeat(10_000) }] });
  const head = httpRequest('POST /v1/chat/completions HTTP/1.1', [
    'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${body.length}`,
  ]);
  // ~1 KB/s: the whole body would take ~10 s, five times the body timeout.
  return exchange(gateway.port, head + body, { dribbleFrom: head.length, dribbleBytes: 100, dribbleEveryMs: 100, guardMs: 15_000 });
}

async function normalRequest(): Promise<number> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(),
  });
  await response.text();
  return response.status;
}

describe('slow bodies', () => {
  it('a body at ~1 KB/s → 408 request_timeout and close, before it is all sent', async () => {
    const result = await slowBody();
    expect(result.hung).toBe(false);
    expect(result.closed).toBe(true);
    expect(result.responses.map((response) => response.status)).toEqual([408]);
    expect(errorCodeOf(result.responses[0])).toBe('request_timeout');
    expect(result.responses[0]!.headers.connection).toBe('close');
    expect(await normalRequest()).toBe(200);
  });

  it('several slow bodies at once do not hold up a normal request', async () => {
    let slowDone = 0;
    const slow = Array.from({ length: 8 }, () => slowBody().then((result) => { slowDone++; return result; }));
    // Answered while every slow body is still being dribbled in.
    expect(await normalRequest()).toBe(200);
    expect(slowDone).toBe(0);
    for (const result of await Promise.all(slow)) {
      expect(result.closed).toBe(true);
      expect(result.responses.map((response) => response.status)).toEqual([408]);
    }
  });
});

describe('heads that never finish', () => {
  it('slowloris, a bare CR and a silent connection are closed by uWS; normal requests go on meanwhile', { timeout: UWS_IDLE_GUARD_MS + 15_000 }, async () => {
    const endless = `GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(200)}`;
    const stuck = [
      // One header byte every 500 ms, never finishing: dribbling does not reset uWS's timer.
      ...Array.from({ length: 6 }, () => exchange(gateway.port, endless, { dribbleBytes: 1, dribbleEveryMs: 500, guardMs: UWS_IDLE_GUARD_MS })),
      // A CR not followed by LF: uWS waits for the rest of the line.
      exchange(gateway.port, 'GET /health HTTP/1.1\r\nHost: x\rX-After: y\r\n\r\n', { guardMs: UWS_IDLE_GUARD_MS }),
      exchange(gateway.port, '', { guardMs: UWS_IDLE_GUARD_MS }),
    ];
    let stuckDone = 0;
    for (const pending of stuck) void pending.then(() => { stuckDone++; });
    for (let round = 0; round < 5; round++) {
      expect(await normalRequest()).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(stuckDone).toBe(0);
    for (const result of await Promise.all(stuck)) {
      expect(result.hung).toBe(false);
      expect(result.closed).toBe(true);
      expect(result.responses).toEqual([]);
    }
    expect(await normalRequest()).toBe(200);
  });
});
