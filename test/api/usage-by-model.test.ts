// Usage is counted under the model id the client asked for: a route's own id (`auto`), not the
// model it chose, and each model of a key apart. Default settings (the local engine, no prices).
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
});

afterAll(async () => {
  await gateway.close();
});

it('counts a routed request under the route and a direct one under its model, at cost 0 without a price', async () => {
  const { key, id } = await gateway.createKey();
  for (const model of ['auto', 'auto', 'fast']) {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ model, max_tokens: 8 }),
    });
    expect(response.status).toBe(200);
    await response.text();
  }
  const today = new Date().toISOString().slice(0, 10);
  await vi.waitFor(async () => {
    const rows = await gateway.app.store.usageByDay([id], today, today);
    expect(rows.map((row) => [row.model, row.requests, row.costMicros])).toEqual([['auto', 2, 0], ['fast', 1, 0]]);
    expect(rows.every((row) => row.completionTokens > 0)).toBe(true);
  }, { timeout: 5_000, interval: 50 });
});
