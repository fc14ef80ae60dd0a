import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SchemaBudget } from '../../../src/engine/schema-budget.ts';

describe('SchemaBudget', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('admits while the account is above zero, refuses with 429 and Retry-After once spent, and refills over the minute', () => {
    const budget = new SchemaBudget(3_000);
    budget.admit('a');
    budget.charge('a', 2_000);
    budget.admit('a'); // 1,000 ms left
    budget.charge('a', 2_500); // one request may overdraw: -1,500 ms
    let refusal: unknown;
    try {
      budget.admit('a');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'rate_limit_exceeded', status: 429, headers: { 'retry-after': '30' } });
    budget.admit('b');
    vi.advanceTimersByTime(30_001);
    expect(() => budget.admit('a')).not.toThrow();
  });
});
