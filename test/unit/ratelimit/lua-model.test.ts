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
      const issued: { subject: (typeof subjects)[number]; id: string; reserved: number }[] = [];
      const expected: unknown[] = [];
      const replies: Promise<unknown>[] = [];
      const before = await evalshaCalls();
      for (let step = 0; step < 30; step += 1) {
        now += timeStep(next);
        const pick = next();
        if (pick < 0.6 || issued.length === 0) {
          const subject = subjects[Math.floor(next() * subjects.length)]!;
          const tokens = Math.floor(next() * subject.policy.key.tpm * 0.6);
          const slot = { id: `b${step}`, ttlMs: 50 + Math.floor(next() * 60_000) };
          expected.push(model.acquire(subject.ids, subject.policy, tokens, slot, now));
          replies.push(script.acquire(subject.ids, subject.policy, tokens, slot.id, slot.ttlMs, now));
          issued.push({ subject, id: slot.id, reserved: tokens });
        } else if (pick < 0.85) {
          // Settling a slot asked for earlier in the same batch, or refused: both as the model does.
          const [lease] = issued.splice(Math.floor(next() * issued.length), 1);
          const { ids, policy } = lease!.subject;
          const refund = lease!.reserved - Math.floor(next() * 2 * lease!.reserved);
          model.settle(ids, policy, refund, lease!.id, now);
          expected.push(now);
          replies.push(script.settle(ids, policy, refund, lease!.id, now));
        } else {
          const lease = issued[Math.floor(next() * issued.length)]!;
          const ttlMs = 50 + Math.floor(next() * 60_000);
          model.renew(lease.subject.ids.keyId, lease.id, ttlMs, now);
          expected.push(now);
          replies.push(script.renew(lease.subject.ids, lease.subject.policy, lease.id, ttlMs, now));
        }
      }
      expect(await Promise.all(replies), `seed ${seed}`).toEqual(expected);
      expect(await evalshaCalls() - before, `seed ${seed}`).toBe(1);
      for (const subject of subjects) await expectSameState(subject.ids, model, `seed ${seed}, ${subject.ids.keyId}`);
      for (const reply of expected) if (typeof reply === 'object') seen.add((reply as { limitedBy: string | null }).limitedBy ?? 'allowed');
    }
    expect(seen).toContain('allowed');
    expect(seen.size).toBeGreaterThan(3);
  });

  it(`splits a turn's operations into calls of at most ${MAX_BATCH}`, async () => {
    const ids = { keyId: 'key_split', accountId: 'acct_split' };
    const policy: LimitPolicy = { key: { rpm: 1_000, tpm: 1_000_000 }, account: null, concurrency: 0, failClosed: false };
    const before = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    const count = 2 * MAX_BATCH + 10;
    const decisions = await Promise.all(Array.from({ length: count }, (_, index) => script.acquire(ids, policy, 1, `x${index}`, 1_000, 1_760_000_000_000)));
    const after = Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    expect(after - before).toBe(3);
    // One after the other: the request bucket went down by one per decision, in order.
    expect(decisions.map((decision) => decision.key.requests)).toEqual(Array.from({ length: count }, (_, index) => 999 - index));
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
