// Budget periods on a driven clock: a monthly budget spent on the last day of a month is refused
// with a Retry-After to the month's end and renews at 00:00 UTC on the 1st; a daily one at
// midnight; a total one never. Costs are integers, rounded up once.
import { expect, it } from 'vitest';
import { BudgetGate } from '../../../src/budget/budget-gate.ts';
import { MemoryBudgetLedger } from '../../../src/budget/memory-budget-ledger.ts';
import { costMicros, formatMicros, toMicros } from '../../../src/budget/price.ts';
import type { BudgetSetting, BudgetsConfig, ModelConfig } from '../../../src/config/config-types.ts';
import { ApiError } from '../../../src/errors/api-error.ts';

const MODEL = { id: 'm', price: { input: 1, output: 2, cachedInput: 0.5 } } as ModelConfig;
const SUBJECT = { keyId: 'k', accountId: 'a' };

function gateAt(clock: { now: number }, key: BudgetSetting | null, account: BudgetSetting | null = null): BudgetGate {
  const settings: BudgetsConfig = { currency: 'USD', key, account, keys: new Map(), accounts: new Map() };
  return new BudgetGate(new MemoryBudgetLedger(() => clock.now), settings);
}

/** The in-memory ledger decides at once: a refusal is thrown, not a rejection. */
function refusal(attempt: () => unknown): ApiError {
  let error: unknown = null;
  try {
    attempt();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

it('renews a monthly budget at the start of the next month, and says when', async () => {
  const clock = { now: Date.UTC(2028, 1, 29, 23, 59, 0) }; // 29 February of a leap year
  const gate = gateAt(clock, { limit: 100, period: 'month' });
  const hold = await gate.reserve(SUBJECT, MODEL, 50, 0);
  gate.settle(hold!, 90);
  const error = refusal(() => gate.reserve(SUBJECT, MODEL, 20, 0));
  expect(error.code).toBe('budget_exceeded');
  expect(error.status).toBe(429);
  expect(error.headers!['retry-after']).toBe('60');
  expect(error.headers!['x-budget-reset']).toBe('2028-03-01T00:00:00.000Z');
  expect(error.headers!['x-budget-remaining']).toBe('0.000010');
  clock.now = Date.UTC(2028, 2, 1, 0, 0, 0);
  expect(await gate.reserve(SUBJECT, MODEL, 20, 0)).not.toBeNull();
  expect((await gate.state(SUBJECT))!.key).toEqual({ spent: 0, reserved: 20, endsAt: Date.UTC(2028, 3, 1) });
});

it('renews a daily budget at midnight UTC and a total one never', async () => {
  const clock = { now: Date.UTC(2027, 11, 31, 23, 0, 0) };
  const daily = gateAt(clock, null, { limit: 10, period: 'day' });
  const total = gateAt(clock, { limit: 10, period: 'total' });
  for (const gate of [daily, total]) gate.settle((await gate.reserve(SUBJECT, MODEL, 10, 0))!, 10);
  expect(refusal(() => daily.reserve(SUBJECT, MODEL, 1, 0)).headers!['retry-after']).toBe('3600');
  const totalRefusal = refusal(() => total.reserve(SUBJECT, MODEL, 1, 0));
  expect(totalRefusal.headers!['retry-after']).toBeUndefined();
  expect(totalRefusal.message).toContain("this key's budget has 0.000000 USD left");
  clock.now = Date.UTC(2028, 0, 1);
  expect(await daily.reserve(SUBJECT, MODEL, 1, 0)).not.toBeNull();
  refusal(() => total.reserve(SUBJECT, MODEL, 1, 0));
});

it('names the account when its budget is the tighter one', async () => {
  const gate = gateAt({ now: 0 }, { limit: 1_000, period: 'day' }, { limit: 5, period: 'day' });
  const error = refusal(() => gate.reserve(SUBJECT, MODEL, 6, 0));
  expect(error.message).toContain("the account's daily budget has 0.000005 USD left");
});

it('reserves nothing for a model without a price or a key without a budget', () => {
  const gate = gateAt({ now: 0 }, { limit: 0, period: 'day' });
  expect(gate.reserve(SUBJECT, { ...MODEL, price: null }, 1_000, 1_000)).toBeNull();
  const keyless = new BudgetGate(new MemoryBudgetLedger(), { currency: 'USD', key: { limit: 0, period: 'day' }, account: null, keys: new Map([['k', null]]), accounts: new Map() });
  expect(keyless.reserve(SUBJECT, MODEL, 1_000, 1_000)).toBeNull();
});

it('prices in integer micro-units, cached input at its own price, rounded up once', () => {
  expect(costMicros({ input: 0.15, output: 0.6, cachedInput: 0.075 }, 1_000, 100, 400)).toBe(Math.ceil(600 * 0.15 + 400 * 0.075 + 100 * 0.6));
  expect(costMicros({ input: 0.1, output: 0.1, cachedInput: 0.1 }, 1, 0)).toBe(1);
  expect(costMicros(null, 1_000, 1_000)).toBe(0);
  expect(toMicros(5)).toBe(5_000_000);
  expect(toMicros(0.1 + 0.2)).toBe(300_000);
  expect(formatMicros(5_000_123)).toBe('5.000123');
});
