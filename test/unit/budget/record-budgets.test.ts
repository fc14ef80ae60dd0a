// Which budget a key draws on when its record or its account's has one: the config's entry for the
// id wins (the operator's file is the authority), then the record's own, then the config's default.
import { expect, it } from 'vitest';
import { BudgetGate } from '../../../src/budget/budget-gate.ts';
import { MemoryBudgetLedger } from '../../../src/budget/memory-budget-ledger.ts';
import type { BudgetSetting, BudgetsConfig, ModelConfig } from '../../../src/config/config-types.ts';

const MODEL = { id: 'm', price: { input: 1, output: 2, cachedInput: 0.5 } } as ModelConfig;
const DAY: BudgetSetting = { limit: 10, period: 'day' };
const MONTH: BudgetSetting = { limit: 20, period: 'month' };
const TOTAL: BudgetSetting = { limit: 30, period: 'total' };

function gate(settings: Partial<BudgetsConfig> = {}): BudgetGate {
  return new BudgetGate(new MemoryBudgetLedger(), { currency: 'USD', key: null, account: null, keys: new Map(), accounts: new Map(), ...settings });
}

it('with no budget in the config nor on the records, reserves nothing', () => {
  const off = gate();
  expect(off.reserve({ keyId: 'k', accountId: 'a' }, MODEL, 1_000, 1_000)).toBeNull();
  expect(off.reserve({ keyId: 'k', accountId: 'a', keyBudget: null, accountBudget: null }, MODEL, 1_000, 1_000)).toBeNull();
  expect(off.scopesOf({ keyId: 'k', accountId: 'a' })).toBeNull();
});

it("takes a record's budget over the config's default, and the config's entry for the id over the record's", () => {
  const subject = { keyId: 'k', accountId: 'a', keyBudget: MONTH, accountBudget: TOTAL };
  expect(gate().scopesOf(subject)).toMatchObject({ key: MONTH, account: TOTAL });
  expect(gate({ key: DAY, account: DAY }).scopesOf(subject)).toMatchObject({ key: MONTH, account: TOTAL });
  const pinned = gate({ key: DAY, keys: new Map([['k', null]]), accounts: new Map([['a', DAY]]) });
  expect(pinned.scopesOf(subject)).toMatchObject({ key: null, account: DAY });
  expect(gate({ key: DAY }).scopesOf({ keyId: 'k', accountId: 'a', keyBudget: null })).toMatchObject({ key: DAY, account: null });
});

it("follows a record's budget as it changes, set, altered or cleared", () => {
  const budgets = gate();
  expect(budgets.scopesOf({ keyId: 'k', accountId: 'a' })).toBeNull();
  expect(budgets.scopesOf({ keyId: 'k', accountId: 'a', keyBudget: DAY })?.key).toEqual(DAY);
  expect(budgets.scopesOf({ keyId: 'k', accountId: 'a', keyBudget: { ...DAY, limit: 11 } })?.key).toEqual({ ...DAY, limit: 11 });
  expect(budgets.scopesOf({ keyId: 'k', accountId: 'a', accountBudget: MONTH })).toMatchObject({ key: null, account: MONTH });
  expect(budgets.scopesOf({ keyId: 'k', accountId: 'a', keyBudget: null })).toBeNull();
});

it("refuses a request that does not fit a record's budget", () => {
  const budgets = gate();
  const subject = { keyId: 'k', accountId: 'a', keyBudget: { limit: 5, period: 'total' as const } };
  expect(() => budgets.reserve(subject, MODEL, 10, 10)).toThrow(expect.objectContaining({ code: 'budget_exceeded' }));
});
