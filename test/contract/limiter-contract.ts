// The behaviour every Limiter must share (memory and Redis). Each test uses fresh key and account
// ids, so implementations backed by one shared server need no cleanup between tests.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsConfig, RateLimits } from '../../src/config/config-types.ts';
import { DEFAULT_LIMITS } from '../../src/config/default-config.ts';
import type { LimitDecision, LimitSubject, Limiter } from '../../src/ratelimit/limiter.ts';

export interface LimiterOptions {
  readonly settings?: Partial<LimitsConfig>;
  /** An unsettled slot (its holder gone) is free again within about this long. */
  readonly slotExpiryMs?: number;
}

export type MakeLimiter = (options: LimiterOptions) => Promise<Limiter>;

export function subject(limits: RateLimits, accountId = `acct_${randomBytes(6).toString('hex')}`): LimitSubject {
  return { keyId: `key_${randomBytes(6).toString('hex')}`, accountId, limits };
}

function admitted(decision: LimitDecision): LimitDecision {
  expect(decision.allowed, JSON.stringify(decision)).toBe(true);
  return decision;
}

export function runLimiterContract(name: string, makeLimiter: MakeLimiter): void {
  describe(`Limiter contract: ${name}`, () => {
    const made: Limiter[] = [];
    const make = async (options: LimiterOptions = {}) => {
      const limiter = await makeLimiter(options);
      made.push(limiter);
      return limiter;
    };

    afterEach(async () => {
      await Promise.all(made.splice(0).map((limiter) => limiter.close()));
    });

    it('admits a burst up to the requests per minute, then denies with a finite wait', async () => {
      const limiter = await make();
      const who = subject({ rpm: 5, tpm: 100_000 });
      for (let remaining = 4; remaining >= 0; remaining -= 1) {
        const decision = admitted(await limiter.acquire(who, 10));
        expect(decision).toMatchObject({ requestsLimit: 5, requestsRemaining: remaining });
        expect(decision.tokensLimit).toBe(100_000);
        expect(decision.lease?.reservedTokens).toBe(10);
        expect(decision.degraded).toBe(false);
      }
      const denied = await limiter.acquire(who, 10);
      expect(denied).toMatchObject({ allowed: false, lease: null, limitedBy: { name: 'key_requests', limit: 5 } });
      expect(denied.retryAfterMs).toBeGreaterThan(11_000);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(12_000);
      expect(denied.requestsRemaining).toBe(0);
      expect(denied.requestsResetMs).toBeGreaterThan(0);
    });

    it('decides with the settings useSettings gives from then on, keeping the slots held', async () => {
      const limiter = await make({ settings: { concurrency: 1 } });
      const who = subject({ rpm: 100, tpm: 100_000 });
      const held = admitted(await limiter.acquire(who, 1));
      expect((await limiter.acquire(who, 1)).limitedBy?.name).toBe('concurrency');
      limiter.useSettings({ ...DEFAULT_LIMITS, concurrency: 2 });
      const second = admitted(await limiter.acquire(who, 1));
      expect((await limiter.acquire(who, 1)).limitedBy?.name).toBe('concurrency');
      await limiter.settle(held.lease!, 1);
      await limiter.settle(second.lease!, 1);
    });

    it('changes nothing when it denies', async () => {
      const limiter = await make();
      const who = subject({ rpm: 100, tpm: 1000 });
      admitted(await limiter.acquire(who, 700));
      expect((await limiter.acquire(who, 400)).limitedBy?.name).toBe('key_tokens');
      const next = admitted(await limiter.acquire(who, 290));
      expect(next.requestsRemaining).toBe(98);
      expect(next.tokensRemaining).toBeLessThanOrEqual(11);
    });

    it('does not lengthen the wait however often a denied key asks', async () => {
      const limiter = await make();
      const who = subject({ rpm: 2, tpm: 100_000 });
      admitted(await limiter.acquire(who, 1));
      admitted(await limiter.acquire(who, 1));
      const first = await limiter.acquire(who, 1);
      for (let i = 0; i < 50; i += 1) await limiter.acquire(who, 1);
      const last = await limiter.acquire(who, 1);
      expect(last.allowed).toBe(false);
      expect(last.retryAfterMs).toBeLessThanOrEqual(first.retryAfterMs);
    });

    it('answers Infinity for a request larger than the token limit, and it costs nothing', async () => {
      const limiter = await make();
      const who = subject({ rpm: 10, tpm: 500 });
      const denied = await limiter.acquire(who, 501);
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: Infinity, limitedBy: { name: 'key_tokens', limit: 500 } });
      const next = admitted(await limiter.acquire(who, 500));
      expect(next.requestsRemaining).toBe(9);
    });

    it('settles: refunds what was reserved but not used', async () => {
      const limiter = await make();
      const who = subject({ rpm: 100, tpm: 1000 });
      const { lease } = admitted(await limiter.acquire(who, 1000));
      expect((await limiter.acquire(who, 500)).allowed).toBe(false);
      await limiter.settle(lease!, 100);
      expect(admitted(await limiter.acquire(who, 890)).tokensRemaining).toBeLessThanOrEqual(11);
    });

    it('settles: charges use beyond the reservation, once however often it is settled', async () => {
      const limiter = await make();
      const who = subject({ rpm: 100, tpm: 1000 });
      const { lease } = admitted(await limiter.acquire(who, 100));
      await limiter.settle(lease!, 600);
      await limiter.settle(lease!, 600);
      const remaining = admitted(await limiter.acquire(who, 1)).tokensRemaining;
      expect(remaining).toBeGreaterThanOrEqual(399);
      expect(remaining).toBeLessThanOrEqual(401);
    });

    it('caps concurrent requests per key; a settled slot is free again', async () => {
      const limiter = await make({ settings: { concurrency: 2 } });
      const who = subject({ rpm: 100, tpm: 100_000 });
      const first = admitted(await limiter.acquire(who, 1));
      admitted(await limiter.acquire(who, 1));
      const denied = await limiter.acquire(who, 1);
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: 1000, limitedBy: { name: 'concurrency', limit: 2 } });
      expect(denied.requestsRemaining).toBe(98);
      await limiter.settle(first.lease!, 1);
      admitted(await limiter.acquire(who, 1));
      expect((await limiter.acquire(subject({ rpm: 100, tpm: 100_000 }), 1)).allowed).toBe(true);
    });

    it('leaks no slot over many acquire/settle cycles', async () => {
      const limiter = await make({ settings: { concurrency: 1 } });
      const who = subject({ rpm: 1000, tpm: 1_000_000 });
      for (let i = 0; i < 200; i += 1) {
        const { lease } = admitted(await limiter.acquire(who, 1));
        await limiter.settle(lease!, i % 2);
      }
      admitted(await limiter.acquire(who, 1));
    });

    it('frees a slot that is never settled once it expires', async () => {
      const slotExpiryMs = 300;
      const limiter = await make({ settings: { concurrency: 1 }, slotExpiryMs });
      const who = subject({ rpm: 1000, tpm: 1_000_000 });
      const started = Date.now();
      admitted(await limiter.acquire(who, 1));
      expect((await limiter.acquire(who, 1)).limitedBy?.name).toBe('concurrency');
      await expect.poll(async () => (await limiter.acquire(who, 1)).allowed, { timeout: 10 * slotExpiryMs }).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(slotExpiryMs - 50); // not before it expired
    });

    it('limits an account as a whole when account limits are set', async () => {
      const limiter = await make({ settings: { account: { rpm: 3, tpm: 1_000_000 } } });
      const a = subject({ rpm: 10, tpm: 100_000 });
      const b = subject({ rpm: 10, tpm: 100_000 }, a.accountId);
      admitted(await limiter.acquire(a, 1));
      admitted(await limiter.acquire(a, 1));
      expect(admitted(await limiter.acquire(b, 1))).toMatchObject({ requestsLimit: 3, requestsRemaining: 0 });
      const denied = await limiter.acquire(b, 1);
      expect(denied).toMatchObject({ allowed: false, limitedBy: { name: 'account_requests', limit: 3 } });
      admitted(await limiter.acquire(subject({ rpm: 10, tpm: 100_000 }), 1));
    });

    it('keeps keys apart', async () => {
      const limiter = await make();
      const noisy = subject({ rpm: 1, tpm: 100_000 });
      const quiet = subject({ rpm: 1, tpm: 100_000 }, noisy.accountId);
      admitted(await limiter.acquire(noisy, 1));
      for (let i = 0; i < 20; i += 1) expect((await limiter.acquire(noisy, 1)).allowed).toBe(false);
      admitted(await limiter.acquire(quiet, 1));
    });

    it('admits exactly the capacity under concurrency', async () => {
      const limiter = await make({ settings: { concurrency: 1000 } });
      const who = subject({ rpm: 50, tpm: 1_000_000 });
      const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.acquire(who, 1)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(50);
    });

    it('applies a lowered limit at once', async () => {
      const limiter = await make();
      const who = subject({ rpm: 10, tpm: 100_000 });
      admitted(await limiter.acquire(who, 1));
      const lowered = admitted(await limiter.acquire({ ...who, limits: { rpm: 3, tpm: 100_000 } }, 1));
      expect(lowered).toMatchObject({ requestsLimit: 3, requestsRemaining: 2 });
    });

    it('tells the truth about when to retry', async () => {
      const limiter = await make();
      const who = subject({ rpm: 1000, tpm: 6000 }); // 100 tokens a second
      admitted(await limiter.acquire(who, 6000));
      const denied = await limiter.acquire(who, 50);
      expect(denied.retryAfterMs).toBeGreaterThan(400);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(500);
      await sleep(denied.retryAfterMs - 200);
      expect((await limiter.acquire(who, 50)).allowed).toBe(false);
      await sleep(230);
      admitted(await limiter.acquire(who, 50));
    });
  });
}
