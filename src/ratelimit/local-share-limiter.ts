// The fallback while Redis cannot answer: this instance enforces its share of every limit
// (limit / expectedInstances), so a fleet of N admits about what Redis would have — never
// unlimited, never "429 everything". Decisions are marked degraded.
import type { LimitsConfig } from '../config/config-types.ts';
import type { LimitDecision, LimitSubject, Lease, Limiter } from './limiter.ts';
import { type PolicyResolver, localShare, policyResolver, tokenCapacity } from './limit-policy.ts';
import { MemoryLimiter, type MemoryLimiterOptions } from './memory-limiter.ts';

export class LocalShareLimiter implements Limiter {
  readonly #memory: MemoryLimiter;
  readonly #policyFor: PolicyResolver;
  readonly #instances: number;

  constructor(settings: LimitsConfig, options: MemoryLimiterOptions = {}) {
    this.#memory = new MemoryLimiter(settings, options);
    this.#policyFor = policyResolver(settings);
    this.#instances = settings.expectedInstances;
  }

  async acquire(subject: LimitSubject, tokens: number): Promise<LimitDecision> {
    const full = this.#policyFor(subject);
    const share = localShare(full, this.#instances);
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
