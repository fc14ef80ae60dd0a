// RedisLimiter passes the shared contract, and what only a shared store can promise: limiter
// instances on separate connections admit exactly the capacity together, every key expires, a
// denial writes nothing, and all of a request's keys hash to one Cluster slot.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LIMITS, DEFAULT_REDIS } from '../../src/config/default-config.ts';
import { limiterKeys } from '../../src/ratelimit/rate-limit-script.ts';
import { RedisLimiter } from '../../src/ratelimit/redis-limiter.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { type LimiterOptions, runLimiterContract, subject } from './limiter-contract.ts';

let redis: TestRedis;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
});

afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

async function open(options: LimiterOptions = {}): Promise<RedisLimiter> {
  return RedisLimiter.open(
    { url: redis.url, ...DEFAULT_REDIS },
    { settings: { ...DEFAULT_LIMITS, ...options.settings }, leaseMs: options.slotExpiryMs, maxHoldMs: options.slotExpiryMs },
  );
}

runLimiterContract('RedisLimiter', open);

describe('RedisLimiter on one shared Redis', () => {
  const opened: RedisLimiter[] = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(opened.splice(0).map((limiter) => limiter.close()));
  });

  async function fleet(size: number, options: LimiterOptions = {}): Promise<RedisLimiter[]> {
    const limiters = await Promise.all(Array.from({ length: size }, () => open(options)));
    opened.push(...limiters);
    return limiters;
  }

  it('3 instances on separate connections admit exactly 50 of 300 concurrent requests, every run', async () => {
    const limiters = await fleet(3, { settings: { concurrency: 1000 } });
    for (let run = 0; run < 10; run += 1) {
      const who = subject({ rpm: 50, tpm: 1_000_000 });
      const decisions = await Promise.all(Array.from({ length: 300 }, (_, i) => limiters[i % 3]!.acquire(who, 1)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
      expect(decisions.some((decision) => decision.degraded)).toBe(false);
    }
  });

  it('settles a lease only on the instance that granted it', async () => {
    const [granting, other] = await fleet(2, { settings: { concurrency: 1 } });
    const who = subject({ rpm: 100, tpm: 1_000_000 });
    const decision = await granting!.acquire(who, 10);
    expect(decision.allowed).toBe(true);
    await other!.settle(decision.lease!, 0);
    expect(await granting!.acquire(who, 10)).toMatchObject({ allowed: false, limitedBy: { name: 'concurrency' } });
    await granting!.settle(decision.lease!, 0);
    expect((await granting!.acquire(who, 10)).allowed).toBe(true);
  });

  const scriptCalls = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);

  it('spends leases locally: 1,000 requests one after the other on a busy key take a few dozen calls, none beyond the limit', async () => {
    // The account's buckets as large as the key's: both are leased from.
    const [limiter] = await fleet(1, { settings: { account: { rpm: 1_000_000, tpm: 1_000_000_000 } } });
    const who = subject({ rpm: 1_000_000, tpm: 1_000_000_000 });
    const before = await scriptCalls();
    for (let i = 0; i < 1_000; i += 1) {
      const decision = await limiter!.acquire(who, 100);
      expect(decision.allowed).toBe(true);
      await limiter!.settle(decision.lease!, 50);
    }
    expect(await scriptCalls() - before).toBeLessThan(40);
  });

  it('answers a 429 flood from the cached denial until the bucket refills: no call per refusal', async () => {
    const [limiter] = await fleet(1);
    const who = subject({ rpm: 2, tpm: 1_000_000 });
    await limiter!.acquire(who, 1);
    await limiter!.acquire(who, 1);
    const first = await limiter!.acquire(who, 1);
    expect(first).toMatchObject({ allowed: false, limitedBy: { name: 'key_requests' } });
    const before = await scriptCalls();
    const flood = await Promise.all(Array.from({ length: 500 }, () => limiter!.acquire(who, 1)));
    expect(flood.every((decision) => !decision.allowed && decision.retryAfterMs > 0 && decision.retryAfterMs <= first.retryAfterMs)).toBe(true);
    expect(await scriptCalls() - before).toBe(0);
  });

  it('registers each instance in the fleet, divides the local share by the live count, and leaves on close', async () => {
    const limiters = await fleet(3);
    // A heartbeat each after all three joined.
    await expect.poll(() => Math.min(...limiters.map((limiter) => limiter.instances))).toBeGreaterThanOrEqual(3);
    for (const limiter of limiters) expect(limiter.instances).toBe(await admin.zcard('munja:fleet:v1'));
    const live = await admin.zcard('munja:fleet:v1');
    await limiters[0]!.close();
    opened.splice(opened.indexOf(limiters[0]!), 1);
    expect(await admin.zcard('munja:fleet:v1')).toBe(live - 1);
  });

  it('is immune to the gateway clock: ±30 s skew changes no decision', async () => {
    const [limiter] = await fleet(1);
    const who = subject({ rpm: 3, tpm: 1_000_000 });
    const realNow = Date.now;
    for (const skew of [30_000, -30_000, 30_000]) {
      vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
      expect((await limiter!.acquire(who, 1)).allowed).toBe(true);
    }
    expect((await limiter!.acquire(who, 1)).allowed).toBe(false);
  });

  it('gives every key it writes an expiry: time to full plus a margin, or the slot allowance\'s lease', async () => {
    const [limiter] = await fleet(1, { settings: { concurrency: 4, account: { rpm: 20, tpm: 1_000_000 } } });
    const who = subject({ rpm: 10, tpm: 1_000_000 });
    const { lease } = await limiter!.acquire(who, 1);
    const [keyBuckets, slots, accountBuckets] = limiterKeys(who);
    const ttl = async (key: string) => admin.pttl(key);
    expect(await ttl(keyBuckets)).toBeGreaterThan(6_000 - 100); // one request of 10/min: 6 s to full
    expect(await ttl(keyBuckets)).toBeLessThanOrEqual(6_000 + 1_000);
    expect(await ttl(accountBuckets)).toBeGreaterThan(3_000 - 100);
    expect(await ttl(accountBuckets)).toBeLessThanOrEqual(3_000 + 1_000);
    expect(await ttl(slots)).toBeGreaterThan(29_000);
    expect(await ttl(slots)).toBeLessThanOrEqual(30_000 + 1_000);
    await limiter!.settle(lease!, 1);
    // The slot stays in this instance's allowance for reuse until its lease is returned (about a second).
    await expect.poll(() => admin.exists(slots)).toBe(0);
  });

  it('writes nothing when it denies (requests, tokens, concurrency, never-fits)', async () => {
    const [limiter] = await fleet(1, { settings: { concurrency: 1, account: { rpm: 100, tpm: 1_000_000 } } });
    const who = subject({ rpm: 1, tpm: 1_000 });
    const keys = limiterKeys(who);
    const snapshot = () => Promise.all(keys.map((key) => admin.dumpBuffer(key).then((dump) => dump?.toString('hex') ?? null)));
    await limiter!.acquire(who, 10);
    const before = await snapshot();
    const ttlBefore = await admin.pttl(keys[0]);
    for (const tokens of [1, 5_000, 10]) expect((await limiter!.acquire(who, tokens)).allowed).toBe(false);
    expect(await snapshot()).toEqual(before);
    expect(await admin.pttl(keys[0])).toBeLessThanOrEqual(ttlBefore);
  });

  it('names all of a request\'s keys under the account\'s hash tag (one Cluster slot)', () => {
    const keys = limiterKeys({ keyId: 'key_0123', accountId: 'acct_4567' });
    expect(keys).toEqual(['munja:rl:v3:{acct_4567}:key:key_0123', 'munja:rl:v3:{acct_4567}:key:key_0123:slots', 'munja:rl:v3:{acct_4567}:account']);
  });
});
