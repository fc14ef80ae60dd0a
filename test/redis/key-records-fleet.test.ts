// Key and account records across two instances sharing Redis: a key past its expiry is refused 401
// on both although both had it cached, and a budget set on the record through one instance holds
// the key back on the other (an expiry and a budget changed by the admin API reach every instance).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, chatCall } from '../helpers/admin-client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../helpers/scripted-upstream.ts';

const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 },
});

let redis: TestRedis;
let upstream: ScriptedUpstream;
let instances: [TestGateway, TestGateway];
let call: ReturnType<typeof adminClient>;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream();
  upstream.answer = (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(COMPLETION);
  };
  const config = { models: { fast: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } } } };
  instances = [await startGateway(config, { env: { REDIS_URL: redis.url } }), await startGateway(config, { env: { REDIS_URL: redis.url } })];
  call = adminClient(instances[0].origin, (await instances[0].createKey({ accountEmail: 'root@example.com', admin: true })).key);
  await call('POST', '/v1/admin/accounts', { email: 'test@example.com' });
}, 30_000);

afterAll(async () => {
  for (const instance of instances) await instance.close();
  await upstream.close();
  await redis.stop();
});

it('refuses a key on every instance once it expires, although each had it cached', async () => {
  const created = (await call('POST', '/v1/admin/keys', { account: 'test@example.com', expires_at: Math.floor(Date.now() / 1000) + 2 })).body;
  for (const instance of instances) expect((await chatCall(instance.origin, created.secret)).status).toBe(200);
  for (const instance of instances) {
    await expect.poll(async () => (await chatCall(instance.origin, created.secret)).status, { timeout: 15_000, interval: 200 }).toBe(401);
  }
  expect(Date.now()).toBeGreaterThanOrEqual(created.expires_at * 1000);
});

it('holds a key back on the other instance once the budget set on its record is spent', async () => {
  const [a, b] = instances;
  const created = (await call('POST', '/v1/admin/keys', { account: 'test@example.com' })).body;
  expect((await chatCall(b.origin, created.secret)).status).toBe(200);
  // Set through instance a (call's), spent through instance b.
  expect((await call('PATCH', `/v1/admin/keys/${created.id}`, { budget: { amount: 0.0001, period: 'total' } })).status).toBe(200);
  let refused: Response | null = null;
  for (let i = 0; i < 20 && refused === null; i++) {
    const response = await chatCall(b.origin, created.secret);
    if (response.status !== 200) refused = response;
    else await response.text();
  }
  expect(refused?.status).toBe(429);
  expect((await refused!.json()).error.code).toBe('budget_exceeded');
  const onA = await chatCall(a.origin, created.secret);
  expect(onA.status).toBe(429);
});
