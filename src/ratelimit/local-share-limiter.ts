// The fallback while Redis cannot be reached: this instance enforces its share of every limit,
// limit / live instances, so the fleet together admits about what Redis would have — never
// unlimited, never "429 everything". A key seen in Redis before the outage starts from its share of
// the level last seen there, not from a full bucket, so an outage is not a fresh minute's worth of
// requests on top of the one just spent. Decisions are marked degraded.
import type { LimitsConfig } from '../config/config-types.ts';
import type { LastSeen } from './key-lease.ts';
import type { LimitDecision, LimitSubject, Lease } from './limiter.ts';
import { type PolicyResolver, localShare, policyResolver, tokenCapacity } from './limit-policy.ts';
import { MemoryLimiter, type MemoryLimiterOptions } from './memory-limiter.ts';

export class LocalShareLimiter {
  readonly #memory: MemoryLimiter;
  #policyFor: PolicyResolver;

  constructor(settings: LimitsConfig, options: MemoryLimiterOptions = {}) {
    this.#memory = new MemoryLimiter(settings, options);
    this.#policyFor = policyResolver(settings);
  }

  useSettings(settings: LimitsConfig): void {
    this.#memory.useSettings(settings);
    this.#policyFor = policyResolver(settings);
  }

  async acquire(subject: LimitSubject, tokens: number, instances: number, seen: LastSeen | null): Promise<LimitDecision> {
    const full = this.#policyFor(subject);
    const share = localShare(full, instances);
    if (seen !== null) {
      const part = (levels: { requests: number; tokens: number }) => ({ requests: levels.requests / instances, tokens: levels.tokens / instances });
      this.#memory.seed(subject, share, part(seen.key), seen.account && part(seen.account), seen.at);
    }
    // A request that fits the real limit but not the share needs a full local bucket (and leaves
    // the rest as debt at settlement); otherwise an outage would answer "never retry" to it.
    const fitsFull = tokens <= tokenCapacity(full);
    const reserve = fitsFull ? Math.min(tokens, tokenCapacity(share)) : tokens;
    return this.#memory.acquireWith(subject, share, reserve, true);
  }

  settle(lease: Lease, usedTokens: number): Promise<void> {
    return this.#memory.settle(lease, usedTokens);
  }

  close(): Promise<void> {
    return this.#memory.close();
  }
}
