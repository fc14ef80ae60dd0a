// token-bucket.lua against limiter-model.ts, the reference model: random sequences of sync
// operations from several instances (admissions, refunds, leases, slot allowances, renewals) and
// policy changes with random (fractional, zero, long, even backwards) time steps must give
// identical decisions, levels, retry times, grants and stored state, bit for bit.
// The clock: a test cannot set Redis TIME, so the script takes an optional `now` (ARGV[2]) that only
// tests pass; production leaves it empty (redis-limiter-faults.test.ts checks the call site). A
// second test runs on Redis TIME and drives the model with the time each reply reports.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/engine/prng.ts';
import type { LimitPolicy } from '../../../src/ratelimit/limit-policy.ts';
import { LimiterModel, type ScopeIds, type SyncOp } from '../../../src/ratelimit/limiter-model.ts';
import { MAX_BATCH, RateLimitScript, limiterKeys } from '../../../src/ratelimit/rate-limit-script.ts';
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
  for (const [redisKey, scope] of [[keyBuckets, model.keyScopes.get(ids.keyId)], [accountBuckets, model.accountScopes.get(ids.accountId)]] as const) {
    const [r, t, ts] = await client.hmget(redisKey, 'r', 't', 'ts');
    if (r === null || scope === undefined) continue; // an expired scope and a missing one are both full
    expect({ r: Number(r), t: Number(t), ts: Number(ts) }, where).toEqual({ r: scope.requests.level, t: scope.tokens.level, ts: scope.requests.updatedAt });
  }
  const stored = await client.hgetall(slots);
  const parsed = Object.entries(stored).map(([instance, value]) => {
    const [count, expiresAt] = value.split(':');
    return [instance, { count: Number(count), expiresAt: Number(expiresAt) }] as const;
  });
  expect(new Map(parsed), where).toEqual(model.slots.get(ids.keyId) ?? new Map());
}

const INSTANCES = ['i-a', 'i-b', 'i-c'];

function randomOp(next: () => number, policy: LimitPolicy): SyncOp {
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const capacity = Math.min(policy.key.tpm, policy.account?.tpm ?? Infinity);
  const tokens = Array.from({ length: int(0, 4) }, () => Math.floor(next() * capacity * (next() < 0.1 ? 1.1 : 0.4)));
  const wanted = next() < 0.5 ? int(1, 2_000) : 0;
  return {
    instance: INSTANCES[int(0, INSTANCES.length - 1)]!,
    slotTtlMs: 50 + Math.floor(next() * 60_000),
    tokens,
    refundRequests: next() < 0.2 ? int(0, 50) : 0,
    refundTokens: next() < 0.3 ? int(-capacity, capacity) : 0,
    want: { requests: wanted, tokens: wanted * int(0, 500), slots: next() < 0.5 ? int(0, 4) : 0 },
    fleet: int(1, 4),
    held: int(0, 3),
    renew: next() < 0.2,
  };
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
      for (let step = 0; step < 40; step += 1) {
        const where = `seed ${seed}, step ${step}`;
        now += timeStep(next);
        if (next() < 0.05) policy = randomPolicy(next);
        const op = randomOp(next, policy);
        const got = await script.sync(ids, policy, op, now);
        expect(got, where).toEqual(model.sync(ids, policy, op, now));
        for (const admission of got.admissions) seen.add(admission.retryAfterMs === Infinity ? 'never' : (admission.limitedBy ?? 'allowed'));
        if (got.granted.requests > 0) seen.add('leased');
        if (got.granted.slots > 0) seen.add('slots leased');
        await expectSameState(ids, model, where);
      }
    }
    // The sequences reach every outcome.
    expect([...seen].sort()).toEqual(['account_requests', 'account_tokens', 'allowed', 'concurrency', 'key_requests', 'key_tokens', 'leased', 'never', 'slots leased']);
  });

  it('agrees on Redis TIME, the model driven by the time each reply reports', async () => {
    for (let seed = 1001; seed <= 1030; seed += 1) {
      const next = createRandom(seed);
      const ids = { keyId: `key_time${seed}`, accountId: `acct_time${seed}` };
      const model = new LimiterModel();
      // 1 000 requests and up to 1 000 000 tokens a second, so that milliseconds matter.
      const policy: LimitPolicy = { key: { rpm: 60_000, tpm: 1 + Math.floor(next() * 6e7) }, account: null, concurrency: 3, failClosed: false };
      for (let step = 0; step < 25; step += 1) {
        if (next() < 0.3) await sleep(Math.floor(next() * 3));
        const op = { ...randomOp(next, policy), slotTtlMs: 10_000 };
        const got = await script.sync(ids, policy, op);
        expect(got).toEqual(model.sync(ids, policy, op, got.now));
        await expectSameState(ids, model, `seed ${seed}, step ${step}`);
      }
    }
  });

  it('runs operations asked for in one turn as one call, each as if made one after the other', async () => {
    const evalshaCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    const seen = new Set<string>();
    for (let seed = 2001; seed <= 2040; seed += 1) {
      const next = createRandom(seed);
      // Two keys of one account and a key of another, each with its own random policy.
      const subjects = [
        { ids: { keyId: `key_batch${seed}a`, accountId: `acct_batch${seed}` }, policy: randomPolicy(next) },
        { ids: { keyId: `key_batch${seed}b`, accountId: `acct_batch${seed}` }, policy: randomPolicy(next) },
        { ids: { keyId: `key_batch${seed}c`, accountId: `acct_batch${seed}x` }, policy: randomPolicy(next) },
      ];
      const model = new LimiterModel();
      let now = 1_760_000_000_000 + next() * 1_000_000;
      const expected: unknown[] = [];
      const replies: Promise<unknown>[] = [];
      const before = await evalshaCalls();
      for (let step = 0; step < 30; step += 1) {
        now += timeStep(next);
        const subject = subjects[Math.floor(next() * subjects.length)]!;
        const op = randomOp(next, subject.policy);
        expected.push(model.sync(subject.ids, subject.policy, op, now));
        replies.push(script.sync(subject.ids, subject.policy, op, now));
      }
      expect(await Promise.all(replies), `seed ${seed}`).toEqual(expected);
      expect(await evalshaCalls() - before, `seed ${seed}`).toBe(1);
      for (const subject of subjects) await expectSameState(subject.ids, model, `seed ${seed}, ${subject.ids.keyId}`);
      for (const reply of expected) for (const admission of (reply as { admissions: { limitedBy: string | null }[] }).admissions) seen.add(admission.limitedBy ?? 'allowed');
    }
    expect(seen).toContain('allowed');
    expect(seen.size).toBeGreaterThan(3);
  });

  const one = (tokens: number[], instance = 'i-a'): SyncOp => ({
    instance, slotTtlMs: 100, tokens, refundRequests: 0, refundTokens: 0, want: { requests: 0, tokens: 0, slots: 0 }, fleet: 1, held: 0, renew: false,
  });

  it(`splits a turn's operations into calls of at most ${MAX_BATCH}`, async () => {
    const ids = { keyId: 'key_split', accountId: 'acct_split' };
    const policy: LimitPolicy = { key: { rpm: 1_000, tpm: 1_000_000 }, account: null, concurrency: 0, failClosed: false };
    const before = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    const count = 2 * MAX_BATCH + 10;
    const results = await Promise.all(Array.from({ length: count }, () => script.sync(ids, policy, one([1]), 1_760_000_000_000)));
    const after = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    expect(after - before).toBe(3);
    // One after the other: the request bucket went down by one per operation, in order.
    expect(results.map((result) => result.key.requests)).toEqual(Array.from({ length: count }, (_, index) => 999 - index));
  });

  it('counts an allowance as gone from the very moment it expires', async () => {
    const ids = { keyId: 'key_edge', accountId: 'acct_edge' };
    const policy: LimitPolicy = { key: { rpm: 100, tpm: 1_000 }, account: null, concurrency: 1, failClosed: false };
    const model = new LimiterModel();
    const now = 1_760_000_000_000.25;
    for (const [instance, at] of [['a', now], ['b', now + 99.5], ['c', now + 100]] as const) {
      const got = await script.sync(ids, policy, one([1], instance), at);
      expect(got).toEqual(model.sync(ids, policy, one([1], instance), at));
    }
    expect(new Map(model.slots.get(ids.keyId))).toEqual(new Map([['c', { count: 1, expiresAt: now + 200 }]]));
  });

  it('returns fractional levels as strings, not truncated integers', async () => {
    const ids = { keyId: 'key_fraction', accountId: 'acct_fraction' };
    const policy: LimitPolicy = { key: { rpm: 7, tpm: 1_000 }, account: null, concurrency: 0, failClosed: false };
    const now = 1_760_000_000_000;
    await script.sync(ids, policy, one([333]), now);
    const got = await script.sync(ids, policy, one([1]), now + 1_234.5);
    expect(Number.isInteger(got.key.requests)).toBe(false);
    expect(got.key.requests).toBeCloseTo(6 + (1_234.5 * 7) / 60_000 - 1, 12);
    expect(got.key.tokens).toBeCloseTo(667 + (1_234.5 * 1_000) / 60_000 - 1, 12);
    expect(await client.hget(limiterKeys(ids)[0], 'r')).toMatch(/\./);
  });
});
