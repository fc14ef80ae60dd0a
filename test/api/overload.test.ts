// Past server.maxInFlight a worker sheds new requests with 503 `overloaded` and Retry-After
// (429 stays for rate limits), keeps answering its probes, and serves again once load drops.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { maxInFlight: 2 }, models: { fast: { local: { tokensPerSecond: 20 } } } });
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

function stream(signal?: AbortSignal) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ stream: true, max_tokens: 200 }),
    signal,
  });
}

describe('overload', () => {
  it('sheds the request past the cap, answers probes, and recovers', async () => {
    const controller = new AbortController();
    const busy = await Promise.all([stream(controller.signal), stream(controller.signal)]);
    for (const response of busy) expect(response.status).toBe(200);

    const shed = await stream();
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('1');
    expect((await shed.json()).error.code).toBe('overloaded');
    expect((await fetch(`${gateway.origin}/health`)).status).toBe(200);
    expect((await fetch(`${gateway.origin}/readyz`)).status).toBe(200);

    controller.abort();
    await Promise.allSettled(busy.map((response) => response.text()));
    await expect.poll(() => gateway.app.lifecycle.inFlight).toBe(0);
    const after = await stream();
    expect(after.status).toBe(200);
    await after.body?.cancel();
  });
});

describe('per-key cap on requests in flight', () => {
  it('sheds a key past server.maxInFlightPerKey with 503 while another key is served, then frees its slots', async () => {
    const capped = await startGateway({ ...FAST_TEST_CONFIG, server: { maxInFlightPerKey: 2 }, limits: { concurrency: 0 }, models: { fast: { local: { tokensPerSecond: 20 } } } });
    try {
      const [busyKey, otherKey] = [(await capped.createKey()).key, (await capped.createKey()).key];
      const post = (apiKey: string, signal?: AbortSignal) => fetch(`${capped.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: chatBody({ stream: true, max_tokens: 200 }),
        signal,
      });
      const controller = new AbortController();
      const busy = await Promise.all([post(busyKey, controller.signal), post(busyKey, controller.signal)]);
      for (const response of busy) expect(response.status).toBe(200);

      const shed = await post(busyKey);
      expect(shed.status).toBe(503);
      expect(shed.headers.get('retry-after')).toBe('1');
      expect((await shed.json()).error.code).toBe('overloaded');
      const other = await post(otherKey);
      expect(other.status).toBe(200);
      await other.body?.cancel();

      controller.abort();
      await Promise.allSettled(busy.map((response) => response.text()));
      // The slots are freed when the aborted streams wind down.
      await expect.poll(async () => {
        const again = await post(busyKey);
        await again.body?.cancel();
        return again.status;
      }).toBe(200);
    } finally {
      await capped.close();
    }
  });
});
