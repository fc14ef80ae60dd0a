// Budgets across a fleet: three instances on one Redis under a concurrent burst never spend more
// than the budget and end with spent = the sum of the served requests' real costs; an instance
// killed (SIGKILL) with reservations outstanding holds them back no longer than their lifetime
// (RESERVATION_TTL_MS, 10 s); with Redis gone, each instance spends at most its share (on the
// defaults and with the divisor fixed), and a key that fails closed gets 503.
// (The outage tests come last: they restart Redis empty.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BudgetScopes } from '../../src/budget/budget-book.ts';
import { RESERVATION_TTL_MS } from '../../src/budget/budget-ledger.ts';
import { budgetKeys, BudgetScript } from '../../src/budget/budget-script.ts';
import { FLEET_KEY } from '../../src/ratelimit/fleet-registry.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../helpers/scripted-upstream.ts';

const PROMPT_TOKENS = 11;
const COMPLETION_TOKENS = 2;
const COST = PROMPT_TOKENS * 1 + COMPLETION_TOKENS * 2;
const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS },
});

let redis: TestRedis;
let upstream: ScriptedUpstream;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream();
  upstream.answer = (response) => {
    // Answers in a later turn, so that requests overlap in flight.
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(COMPLETION);
    }, 20);
  };
  client = new Redis(redis.url);
  client.on('error', () => {}); // the outage tests kill Redis under it; it reconnects by itself
});
afterAll(async () => {
  client.disconnect();
  await upstream.close();
  await redis.stop();
});

it('three instances under a burst never spend more than the budget and end with spent = the served costs', async () => {
  const config = {
    budgets: { key: { amount: 0.0003, period: 'month' as const } }, // 300 micro-units
    models: { priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } } },
  };
  const gateways: TestGateway[] = [];
  for (let i = 0; i < 3; i++) gateways.push(await startGateway(config, { env: { REDIS_URL: redis.url } }));
  try {
    const { key, id, accountId } = await gateways[0]!.createKey();
    const statuses = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      const response = await fetch(`${gateways[i % 3]!.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }] }),
      });
      const body = await response.text();
      return response.status === 200 ? 'served' : JSON.parse(body).error.code as string;
    }));
    const served = statuses.filter((status) => status === 'served').length;
    expect(new Set(statuses)).toEqual(new Set(['served', 'budget_exceeded']));
    const subject = { keyId: id, accountId };
    await expect.poll(async () => (await gateways[1]!.app.budgets!.state(subject))!.key.reserved).toBe(0);
    const { spent } = (await gateways[2]!.app.budgets!.state(subject))!.key;
    expect(spent).toBe(served * COST);
    expect(spent).toBeLessThanOrEqual(300);
    // Reservations of ~31 each: at least 300 / 31 of them fit at once, so at least 9 were served.
    expect(served).toBeGreaterThanOrEqual(9);
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.close()));
  }
});

it('frees the reservations of an instance killed with them outstanding within their lifetime', async () => {
  const [keyScope, , accountScope] = budgetKeys('killed', 'key');
  const scopes: BudgetScopes = { keyScope, key: { limit: 1_000, period: 'day' }, accountScope, account: null };
  const ledger = fileURLToPath(new URL('../../src/budget/redis-budget-ledger.ts', import.meta.url));
  const code = `
    import { Redis } from 'ioredis';
    import { RedisBudgetLedger } from ${JSON.stringify(ledger)};
    const client = new Redis(${JSON.stringify(redis.url)});
    const ledger = new RedisBudgetLedger(client, { logger: console, failClosed: () => true, instances: () => 1 });
    const subject = { keyId: 'key', accountId: 'killed' };
    for (let i = 0; i < 3; i++) await ledger.reserve(subject, ${JSON.stringify(scopes)}, 300);
    console.log('reserved');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = await once(child.stdout!, 'data') as [Buffer];
  expect(chunk.toString()).toContain('reserved');
  const script = new BudgetScript(client);
  const read = async () => (await script.apply('killed', 'key', scopes, { kind: 'read' })).key;
  expect((await read()).reserved).toBe(900);
  child.kill('SIGKILL');
  await once(child, 'exit');
  const killedAt = (await script.apply('killed', 'key', scopes, { kind: 'read' })).now;
  // Each reservation expires at most one lifetime after the kill (its instance renews it no more).
  const stored = await client.hgetall(budgetKeys('killed', 'key')[1]);
  expect(Object.keys(stored)).toHaveLength(3);
  for (const value of Object.values(stored)) expect(Number(value.split(':')[1])).toBeLessThanOrEqual(killedAt + RESERVATION_TTL_MS);
  // No more room than 100 until they expire.
  expect((await script.apply('killed', 'key', scopes, { kind: 'reserve', id: 'x', amount: 101, ttlMs: 1 })).allowed).toBe(false);
  await expect.poll(async () => (await read()).reserved, { timeout: RESERVATION_TTL_MS + 10_000, interval: 250 }).toBe(0);
  expect((await read()).spent).toBe(0);
}, 40_000);

// The share's divisor: on the defaults, the live count the instances read from their heartbeats
// (the test waits until both have beaten since both were in the fleet); or fixed by the setting.
it.each([
  { divisor: 'the live fleet count (defaults)', limits: {} },
  { divisor: 'limits.expectedInstances', limits: { expectedInstances: 2 } },
])('spends at most the instance share of a budget while Redis is down, and counts it in Redis once it is back: $divisor', async ({ limits }) => {
  const config = {
    budgets: { key: { amount: 0.0002, period: 'day' as const } }, // 200 micro-units; two instances: 100 each
    limits,
    models: { priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } } },
  };
  const gateways = [
    await startGateway(config, { env: { REDIS_URL: redis.url } }),
    await startGateway(config, { env: { REDIS_URL: redis.url } }),
  ];
  try {
    const { key, id, accountId } = await gateways[0]!.createKey();
    const chat = (gateway: TestGateway) => fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    // Both instances know the key before Redis goes.
    for (const gateway of gateways) expect((await chat(gateway)).status).toBe(200);
    await bothInstancesCountTheFleet();
    await redis.kill();
    let servedInOutage = 0;
    try {
      for (let i = 0; i < 20; i++) {
        const response = await chat(gateways[0]!);
        await response.text();
        if (response.status === 200) servedInOutage++;
      }
    } finally {
      await redis.restart();
    }
    // The instance's share is 100 micro-units; reservations of ~31 and costs of 15: it stops well short of 20.
    expect(servedInOutage).toBeGreaterThan(0);
    expect(servedInOutage * COST).toBeLessThanOrEqual(100);
    // Redis restarted empty: what the outage spent reaches it with the retried settlements.
    await expect.poll(async () => (await gateways[0]!.app.budgets!.state({ keyId: id, accountId }))!.key.spent).toBe(servedInOutage * COST);
  } finally {
    await Promise.all(gateways.map((gateway) => gateway.close()));
  }
});

/** Waits until each instance has beaten after the fleet held both: a beat reads the count it writes into. */
async function bothInstancesCountTheFleet(): Promise<void> {
  await expect.poll(() => client.zcard(FLEET_KEY), { timeout: 15_000 }).toBe(2);
  const [seconds, micros] = await client.time();
  const bothIn = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  await expect.poll(async () => {
    const scores = (await client.zrange(FLEET_KEY, '0', '-1', 'WITHSCORES')).filter((_, index) => index % 2 === 1).map(Number);
    return scores.length === 2 && scores.every((score) => score > bothIn);
  }, { timeout: 15_000, interval: 100 }).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 200)); // the beat's reply reaching the instance
}

it('refuses with 503 limiter_unavailable a key that fails closed while Redis is down', async () => {
  const gateway = await startGateway({
    limits: { failMode: 'closed' },
    budgets: { key: { amount: 1, period: 'day' } },
    models: { priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 1, output: 2 } } },
  }, { env: { REDIS_URL: redis.url } });
  try {
    const { key } = await gateway.createKey();
    const chat = () => fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'priced', max_tokens: 10, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect((await chat()).status).toBe(200);
    await redis.kill();
    try {
      const response = await chat();
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('limiter_unavailable');
    } finally {
      await redis.restart();
    }
  } finally {
    await gateway.close();
  }
});
