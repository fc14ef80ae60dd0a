import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../../src/dispatch/retry-budget.ts';

describe('RetryBudget', () => {
  it('spends the reserve, then allows one retry per 1/budget first attempts', () => {
    const budget = new RetryBudget({ budgetPercent: 10, reserve: 2 });
    let retries = 0;
    for (let request = 0; request < 1_000; request++) {
      budget.deposit();
      if (budget.tryWithdraw()) retries += 1;
    }
    // 2 from the reserve, and 0.1 per request (floating-point sums may land one short).
    expect(retries).toBeGreaterThanOrEqual(100);
    expect(retries).toBeLessThanOrEqual(102);
    expect(budget.spent).toBe(retries);
  });

  it('never holds more than the reserve, however quiet the failures were', () => {
    const budget = new RetryBudget({ budgetPercent: 50, reserve: 3 });
    for (let request = 0; request < 100; request++) budget.deposit();
    let retries = 0;
    while (budget.tryWithdraw()) retries += 1;
    expect(retries).toBe(3);
  });

  it('a zero budget with no reserve allows nothing', () => {
    const budget = new RetryBudget({ budgetPercent: 0, reserve: 0 });
    for (let request = 0; request < 100; request++) budget.deposit();
    expect(budget.tryWithdraw()).toBe(false);
  });
});
