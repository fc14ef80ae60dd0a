// The model's single-request entry points against sync(), which token-bucket.lua is held to:
// admitOne() must decide, and release() must settle, exactly as sync() does with the equivalent
// operation, leaving the same stored state, while other instances hold and give back slots.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/engine/prng.ts';
import type { LimitPolicy } from '../../../src/ratelimit/limit-policy.ts';
import { LimiterModel, NO_CAPACITY, type SlotHolder, type SyncOp } from '../../../src/ratelimit/limiter-model.ts';

const HOLDER: SlotHolder = { instance: 'i-a', slotTtlMs: 5_000 };

function randomPolicy(next: () => number): LimitPolicy {
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const limits = () => ({ rpm: int(1, 20), tpm: next() < 0.5 ? int(1, 200) : int(200, 100_000) });
  return { key: limits(), account: next() < 0.5 ? null : limits(), concurrency: int(0, 3), failClosed: false };
}

function op(tokens: readonly number[], refundTokens: number, held: number, instance = HOLDER.instance): SyncOp {
  return { instance, slotTtlMs: HOLDER.slotTtlMs, tokens, refundRequests: 0, refundTokens, want: NO_CAPACITY, fleet: 1, held, renew: false };
}

function expectSameState(fast: LimiterModel, reference: LimiterModel, where: string): void {
  expect(fast.keyScopes, where).toEqual(reference.keyScopes);
  expect(fast.accountScopes, where).toEqual(reference.accountScopes);
  expect(fast.slots, where).toEqual(reference.slots);
}

describe('LimiterModel, one request at a time', () => {
  it('admits and releases as sync() does on 200 random sequences of 60 steps', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 200; seed += 1) {
      const next = createRandom(seed);
      const ids = { keyId: `key_${seed}`, accountId: `acct_${seed}` };
      const fast = new LimiterModel();
      const reference = new LimiterModel();
      let policy = randomPolicy(next);
      let now = 1_760_000_000_000 + next() * 1_000;
      const reserved: number[] = [];
      for (let step = 0; step < 60; step += 1) {
        const where = `seed ${seed}, step ${step}`;
        now += next() < 0.3 ? 0 : next() * 4_000 - 100;
        if (next() < 0.05) policy = randomPolicy(next);
        const pick = next();
        if (pick < 0.15) {
          // Another instance takes or gives back slots: admissions here must count them.
          const other = op([], 0, Math.floor(next() * 3), 'i-b');
          fast.sync(ids, policy, other, now);
          reference.sync(ids, policy, other, now);
        } else if (pick < 0.6 || reserved.length === 0) {
          const capacity = Math.min(policy.key.tpm, policy.account?.tpm ?? Infinity);
          const tokens = Math.floor(next() * capacity * (next() < 0.1 ? 1.2 : 0.5));
          const got = fast.admitOne(ids, policy, HOLDER, tokens, reserved.length, now);
          const expected = reference.sync(ids, policy, op([tokens], 0, reserved.length), now);
          expect({ allowed: got.allowed, retryAfterMs: got.retryAfterMs, limitedBy: got.limitedBy }, where).toEqual(expected.admissions[0]);
          expect({ key: { ...got.key }, account: got.account && { ...got.account } }, where).toEqual({ key: expected.key, account: expected.account });
          seen.add(got.retryAfterMs === Infinity ? 'never' : (got.limitedBy ?? 'allowed'));
          if (got.allowed) reserved.push(tokens);
        } else {
          const refund = reserved.pop()! - Math.floor(next() * 300);
          fast.release(ids, policy, HOLDER, refund, reserved.length, now);
          reference.sync(ids, policy, op([], refund, reserved.length), now);
          seen.add('released');
        }
        expectSameState(fast, reference, where);
      }
    }
    expect([...seen].sort()).toEqual(['account_requests', 'account_tokens', 'allowed', 'concurrency', 'key_requests', 'key_tokens', 'never', 'released']);
  });

  it('decides for an instance alone as sync() does, from its own count of held slots, and writes no allowance', () => {
    const alone: SlotHolder = { ...HOLDER, alone: true };
    const seen = new Set<string>();
    for (let seed = 1; seed <= 100; seed += 1) {
      const next = createRandom(seed);
      const ids = { keyId: `key_${seed}`, accountId: `acct_${seed}` };
      const fast = new LimiterModel();
      const reference = new LimiterModel();
      const policy = randomPolicy(next);
      let now = 1_760_000_000_000;
      const reserved: number[] = [];
      for (let step = 0; step < 60; step += 1) {
        const where = `seed ${seed}, step ${step}`;
        now += next() * 2_000;
        if (next() < 0.6 || reserved.length === 0) {
          const tokens = Math.floor(next() * Math.min(policy.key.tpm, policy.account?.tpm ?? Infinity) * 0.5);
          const got = fast.admitOne(ids, policy, alone, tokens, reserved.length, now);
          const expected = reference.sync(ids, policy, op([tokens], 0, reserved.length), now);
          expect({ allowed: got.allowed, retryAfterMs: got.retryAfterMs, limitedBy: got.limitedBy }, where).toEqual(expected.admissions[0]);
          seen.add(got.limitedBy ?? 'allowed');
          if (got.allowed) reserved.push(tokens);
        } else {
          const refund = reserved.pop()! - Math.floor(next() * 300);
          fast.release(ids, policy, alone, refund, reserved.length, now);
          reference.sync(ids, policy, op([], refund, reserved.length), now);
        }
        expect(fast.keyScopes, where).toEqual(reference.keyScopes);
        expect(fast.accountScopes, where).toEqual(reference.accountScopes);
        expect(fast.slots.size, where).toBe(0);
      }
    }
    expect(seen).toContain('concurrency');
  });
});
