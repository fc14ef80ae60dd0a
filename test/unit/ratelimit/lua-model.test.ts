// token-bucket.lua against limiter-model.ts, the reference model: random sequences of acquire,
// settle, renew and policy changes with random (fractional, zero, long, even backwards) time steps
// must give identical decisions, levels, retry times and stored state, bit for bit.
// The clock: a test cannot set Redis TIME, so the script takes an optional `now` (ARGV[2]) that only
// tests pass; production leaves it empty (redis-limiter-faults.test.ts checks the call site). A
// second test runs on Redis TIME and drives the model with the time each reply reports.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/engine/prng.ts';
import type { LimitPolicy } from '../../../src/ratelimit/limit-policy.ts';
import { LimiterModel, type ScopeIds } from '../../../src/ratelimit/limiter-model.ts';
import { RateLimitScript, limiterKeys } from '../../../src/ratelimit/rate-limit-script.ts';
import { startRedis, type TestRedis } from '../../helpers/redis-server.ts';

let redis: TestRedis;
let client: Redis;
let script: RateLimitScript;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  script = new RateLimitScript(client);
});

afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

function randomPolicy(next: () => number): LimitPolicy {
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  // Rates from 0.01 to 1000 per second.
  const limits = () => ({ rpm: next() < 0.5 ? int(1, 10) : int(10, 60_000), tpm: next() < 0.5 ? int(1, 200) : int(200, 1_000_000) });
  return { key: limits(), account: next() < 0.5 ? null : limits(), concurrency: int(0, 4), failClosed: false };
}

function timeStep(next: () => number): number {
  const pick = next();
  if (pick < 0.25) return 0;
  if (pick < 0.55) return next() * 100;
  if (pick < 0.8) return Math.floor(next() * 5_000);
  if (pick < 0.95) return 5_000 + next() * 120_000;
  return -next() * 50; // a clock that went back (failover to a replica)
}

async function expectSameState(ids: ScopeIds, model: LimiterModel, where: string): Promise<void> {
  const [keyBuckets, slots, accountBuckets] = limiterKeys(ids);
  for (const [redisKey, name] of [[keyBuckets, `key:${ids.keyId}`], [accountBuckets, `account:${ids.accountId}`]] as const) {
    const [r, t, ts] = await client.hmget(redisKey, 'r', 't', 'ts');
    const scope = model.scopes.get(name);
    if (r === null || scope === undefined) continue; // an expired scope and a missing one are both full
    expect({ r: Number(r), t: Number(t), ts: Number(ts) }, where).toEqual({ r: scope.requests.level, t: scope.tokens.level, ts: scope.requests.updatedAt });
  }
  const stored = await client.zrange(slots, '0', '-1', 'WITHSCORES');
  const pairs = [];
  for (let i = 0; i < stored.length; i += 2) pairs.push([stored[i], Number(stored[i + 1])]);
  const modelled = [...(model.slots.get(ids.keyId) ?? [])].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
  expect(pairs, where).toEqual(modelled);
}

describe('token-bucket.lua against the reference model', () => {
  it('agrees on 150 random sequences of 40 operations with a driven clock', async () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 150; seed += 1) {
      const next = createRandom(seed);
      const ids = { keyId: `key_seq${seed}`, accountId: `acct_seq${seed}` };
      const model = new LimiterModel();
      let policy = randomPolicy(next);
      let now = 1_760_000_000_000 + next() * 1_000_000;
      const held: { id: string; reserved: number }[] = [];
      for (let step = 0; step < 40; step += 1) {
        const where = `seed ${seed}, step ${step}`;
        now += timeStep(next);
        const pick = next();
        if (pick < 0.05) {
          policy = randomPolicy(next);
        } else if (pick < 0.6 || held.length === 0) {
          const capacity = Math.min(policy.key.tpm, policy.account?.tpm ?? Infinity);
          const tokens = Math.floor(next() * capacity * 1.1);
          const slot = { id: `s${step}`, ttlMs: 50 + Math.floor(next() * 60_000) };
          const got = await script.acquire(ids, policy, tokens, slot.id, slot.ttlMs, now);
          expect(got, where).toEqual(model.acquire(ids, policy, tokens, slot, now));
          seen.add(got.retryAfterMs === Infinity ? 'never' : (got.limitedBy ?? 'allowed'));
          if (got.allowed) held.push({ id: slot.id, reserved: tokens });
        } else if (pick < 0.9) {
          const [lease] = held.splice(Math.floor(next() * held.length), 1);
          const refund = lease!.reserved - Math.floor(next() * 2 * lease!.reserved);
          expect(await script.settle(ids, policy, refund, lease!.id, now)).toBe(now);
          model.settle(ids, policy, refund, lease!.id, now);
        } else {
          const lease = held[Math.floor(next() * held.length)]!;
          const ttlMs = 50 + Math.floor(next() * 60_000);
          await script.renew(ids, policy, lease.id, ttlMs, now);
          model.renew(ids.keyId, lease.id, ttlMs, now);
        }
        await expectSameState(ids, model, where);
      }
    }
    // The sequences reach every outcome.
    expect([...seen].sort()).toEqual(['account_requests', 'account_tokens', 'allowed', 'concurrency', 'key_requests', 'key_tokens', 'never']);
  });

  it('agrees on Redis TIME, the model driven by the time each reply reports', async () => {
    for (let seed = 1001; seed <= 1030; seed += 1) {
      const next = createRandom(seed);
      const ids = { keyId: `key_time${seed}`, accountId: `acct_time${seed}` };
      const model = new LimiterModel();
      // 1 000 requests and up to 1 000 000 tokens a second, so that milliseconds matter.
      const policy: LimitPolicy = { key: { rpm: 60_000, tpm: 1 + Math.floor(next() * 6e7) }, account: null, concurrency: 3, failClosed: false };
      const held: { id: string; reserved: number }[] = [];
      for (let step = 0; step < 25; step += 1) {
        if (next() < 0.3) await sleep(Math.floor(next() * 3));
        if (next() < 0.7 || held.length === 0) {
          const tokens = Math.floor(next() * policy.key.tpm * 0.3);
          const got = await script.acquire(ids, policy, tokens, `t${step}`, 10_000);
          expect(got).toEqual(model.acquire(ids, policy, tokens, { id: `t${step}`, ttlMs: 10_000 }, got.now));
          if (got.allowed) held.push({ id: `t${step}`, reserved: tokens });
        } else {
          const [lease] = held.splice(0, 1);
          const refund = lease!.reserved - Math.floor(next() * 2 * lease!.reserved);
          model.settle(ids, policy, refund, lease!.id, await script.settle(ids, policy, refund, lease!.id));
        }
        await expectSameState(ids, model, `seed ${seed}, step ${step}`);
      }
    }
  });

  it('counts a slot as gone from the very moment it expires', async () => {
    const ids = { keyId: 'key_edge', accountId: 'acct_edge' };
    const policy: LimitPolicy = { key: { rpm: 100, tpm: 1_000 }, account: null, concurrency: 1, failClosed: false };
    const model = new LimiterModel();
    const now = 1_760_000_000_000.25;
    for (const [slot, at] of [['a', now], ['b', now + 99.5], ['c', now + 100]] as const) {
      const got = await script.acquire(ids, policy, 1, slot, 100, at);
      expect(got).toEqual(model.acquire(ids, policy, 1, { id: slot, ttlMs: 100 }, at));
    }
    expect(new Map(model.slots.get(ids.keyId))).toEqual(new Map([['c', now + 200]]));
  });

  it('returns fractional levels as strings, not truncated integers', async () => {
    const ids = { keyId: 'key_fraction', accountId: 'acct_fraction' };
    const policy: LimitPolicy = { key: { rpm: 7, tpm: 1_000 }, account: null, concurrency: 0, failClosed: false };
    const now = 1_760_000_000_000;
    await script.acquire(ids, policy, 333, 'a', 1_000, now);
    const got = await script.acquire(ids, policy, 1, 'b', 1_000, now + 1_234.5);
    expect(Number.isInteger(got.key.requests)).toBe(false);
    expect(got.key.requests).toBeCloseTo(6 + (1_234.5 * 7) / 60_000 - 1, 12);
    expect(got.key.tokens).toBeCloseTo(667 + (1_234.5 * 1_000) / 60_000 - 1, 12);
    expect(await client.hget(limiterKeys(ids)[0], 'r')).toMatch(/\./);
  });
});
