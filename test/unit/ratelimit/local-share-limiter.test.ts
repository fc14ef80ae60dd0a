// While Redis is away each instance enforces limit / live instances: never unlimited, never
// "429 everything", a request that fits the real limit is never told "do not retry", and a key seen
// in Redis starts from its share of the level last seen there rather than from a full bucket.
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsConfig } from '../../../src/config/config-types.ts';
import { DEFAULT_LIMITS } from '../../../src/config/default-config.ts';
import { localShare, policyResolver } from '../../../src/ratelimit/limit-policy.ts';
import { LocalShareLimiter } from '../../../src/ratelimit/local-share-limiter.ts';

const limiters: LocalShareLimiter[] = [];
afterEach(async () => {
  await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
});

function make(settings: Partial<LimitsConfig>, now = () => 1_000_000): LocalShareLimiter {
  const limiter = new LocalShareLimiter({ ...DEFAULT_LIMITS, ...settings }, { now });
  limiters.push(limiter);
  return limiter;
}

const who = (rpm: number, tpm: number) => ({ keyId: 'key_a', accountId: 'acct_a', limits: { rpm, tpm } });

describe('local share', () => {
  it('divides every limit by the expected instances, rounding up, at least 1', () => {
    const policy = policyResolver({ ...DEFAULT_LIMITS, concurrency: 10, account: { rpm: 7, tpm: 100 } })(who(50, 1000));
    expect(localShare(policy, 3)).toEqual({ key: { rpm: 17, tpm: 334 }, account: { rpm: 3, tpm: 34 }, concurrency: 4, failClosed: false });
    expect(localShare(policy, 1000).key).toEqual({ rpm: 1, tpm: 1 });
  });

  it('admits the share, marked degraded', async () => {
    const limiter = make({});
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.acquire(who(30, 100_000), 1, 3, null)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    expect(decisions.every((decision) => decision.degraded)).toBe(true);
    expect(decisions[0]!.requestsLimit).toBe(10);
  });

  it('admits a request larger than the share but within the limit on a full bucket, then bills the rest as debt', async () => {
    let now = 1_000_000;
    const limiter = make({}, () => now);
    const first = await limiter.acquire(who(100, 1000), 600, 4, null); // share: 250 tokens
    expect(first.allowed).toBe(true);
    expect(first.lease!.reservedTokens).toBe(250);
    await limiter.settle(first.lease!, 600); // 350 tokens of debt
    const next = await limiter.acquire(who(100, 1000), 10, 4, null);
    expect(next.retryAfterMs).toBe(Math.ceil((360 * 60_000) / 250));
    now += next.retryAfterMs;
    expect((await limiter.acquire(who(100, 1000), 10, 4, null)).allowed).toBe(true);
  });

  it('starts a key seen in Redis from its share of the level seen there, refilled since', async () => {
    let now = 1_000_000;
    const limiter = make({}, () => now);
    // 60 rpm: one request a second. Seen with 3 requests left 2 s ago, among 3 instances: 1 + 2/3 now.
    const seen = { key: { requests: 3, tokens: 100_000 }, account: null, at: now - 2_000 };
    expect((await limiter.acquire(who(60, 100_000), 1, 3, seen)).allowed).toBe(true);
    const denied = await limiter.acquire(who(60, 100_000), 1, 3, seen);
    expect(denied.allowed).toBe(false);
    now += denied.retryAfterMs;
    expect((await limiter.acquire(who(60, 100_000), 1, 3, seen)).allowed).toBe(true);
    // Unseen: a full share (60 / 3).
    const fresh = { ...who(60, 100_000), keyId: 'key_fresh' };
    const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.acquire(fresh, 1, 3, null)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
  });

  it('still answers "never" to a request over the real limit', async () => {
    const decision = await make({}).acquire(who(100, 1000), 1001, 4, null);
    expect(decision.retryAfterMs).toBe(Infinity);
  });
});

describe('fail-closed resolution', () => {
  it('applies failMode to all, failClosed to the listed keys and accounts', () => {
    const open = policyResolver({ ...DEFAULT_LIMITS, failClosed: ['key_b', 'acct_c'] });
    expect(open(who(1, 1)).failClosed).toBe(false);
    expect(open({ ...who(1, 1), keyId: 'key_b' }).failClosed).toBe(true);
    expect(open({ ...who(1, 1), accountId: 'acct_c' }).failClosed).toBe(true);
    expect(policyResolver({ ...DEFAULT_LIMITS, failMode: 'closed' })(who(1, 1)).failClosed).toBe(true);
  });

  it('makes a policy once per limits object, and anew when the same limits come with another failure mode', () => {
    const resolve = policyResolver({ ...DEFAULT_LIMITS, failClosed: ['key_b'] });
    const subject = who(5, 50);
    const policy = resolve(subject);
    expect(resolve(subject)).toBe(policy);
    expect(resolve({ ...subject, keyId: 'key_b' }).failClosed).toBe(true);
    expect(resolve(subject)).toEqual(policy);
    expect(resolve(who(5, 50))).not.toBe(policy);
  });
});
