// Budgets and expiry kept on the records, with no budget in the config: a key's own budget and its
// account's hold requests back with 429 budget_exceeded once spent; a key that expires gets 401
// invalid_api_key from then on, on every endpoint, although its lookup was cached.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../helpers/scripted-upstream.ts';

const PROMPT_TOKENS = 11;
const COMPLETION_TOKENS = 2;
const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS },
});

let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.answer = (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(COMPLETION);
  };
  gateway = await startGateway({ models: { priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } } } });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

function chat(key: string): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }] }),
  });
}

/** Chats until refused (at most 20 times); how many were served, and the refusal. */
async function spend(key: string): Promise<{ served: number; refusal: Response | null }> {
  let served = 0;
  for (let i = 0; i < 20; i++) {
    const response = await chat(key);
    if (response.status !== 200) return { served, refusal: response };
    await response.text();
    served++;
  }
  return { served, refusal: null };
}

it('serves a key without a budget anywhere without holding it back', async () => {
  const { key } = await gateway.createKey({ accountEmail: 'free@example.com' });
  expect((await spend(key)).refusal).toBeNull();
});

it("refuses a key with 429 budget_exceeded once its record's budget is spent", async () => {
  const { key, id } = await gateway.createKey({ accountEmail: 'keyed@example.com' });
  expect((await chat(key)).status).toBe(200);
  await gateway.app.store.updateKey(id, { budget: { limit: 100, period: 'total' } }); // 100 micro-units
  const { served, refusal } = await spend(key);
  expect(served).toBeGreaterThan(0);
  expect(refusal?.status).toBe(429);
  expect((await refusal!.json()).error.code).toBe('budget_exceeded');
  expect(refusal!.headers.get('x-budget-limit')).toBe('0.000100');
  expect(refusal!.headers.get('x-budget-period')).toBe('total');
  // Cleared, it no longer holds the key back.
  await gateway.app.store.updateKey(id, { budget: null });
  expect((await chat(key)).status).toBe(200);
});

it("refuses the keys of an account whose record's budget is spent, the key created with its own budget too", async () => {
  const { key, accountId } = await gateway.createKey({ accountEmail: 'shared@example.com', budget: { limit: 1_000_000, period: 'day' } });
  await gateway.app.store.updateAccount(accountId, { budget: { limit: 100, period: 'month' } });
  const { served, refusal } = await spend(key);
  expect(served).toBeGreaterThan(0);
  expect(refusal?.status).toBe(429);
  expect(refusal!.headers.get('x-budget-period')).toBe('month');
  const second = await gateway.createKey({ accountEmail: 'shared@example.com' });
  expect((await chat(second.key)).status).toBe(429);
});

it('refuses an expired key with 401 invalid_api_key on every endpoint, although its lookup was cached', async () => {
  const expiresAt = Date.now() + 1_500;
  const { key } = await gateway.createKey({ accountEmail: 'brief@example.com', expiresAt });
  const models = () => fetch(`${gateway.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });
  expect((await models()).status).toBe(200);
  // Cached now; no event comes, the expiry alone ends it.
  await expect.poll(async () => (await models()).status, { timeout: 10_000, interval: 200 }).toBe(401);
  expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  const refused = await chat(key);
  expect(refused.status).toBe(401);
  expect((await refused.json()).error.code).toBe('invalid_api_key');
  const responses = await fetch(`${gateway.baseURL}/responses`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'priced', input: 'Hi' }),
  });
  expect(responses.status).toBe(401);
  const created = await gateway.createKey({ accountEmail: 'brief@example.com', expiresAt: Date.now() - 1 });
  expect((await chat(created.key)).status).toBe(401);
});
