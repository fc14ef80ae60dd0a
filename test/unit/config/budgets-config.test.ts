import { expect, it } from 'vitest';
import { BudgetGate } from '../../../src/budget/budget-gate.ts';
import { loadConfig, validateConfigFile } from '../../../src/config/load-config.ts';

it('has no budget and no price by default: budgets are off', () => {
  const config = loadConfig({});
  expect(config.budgets).toEqual({ currency: 'USD', key: null, account: null, keys: new Map(), accounts: new Map() });
  expect(BudgetGate.wanted(config.budgets)).toBe(false);
  expect(config.models.every((model) => model.price == null)).toBe(true);
});

it('reads budgets as integer micro-units and prices per million tokens, cached input at the input price unless set', () => {
  const config = loadConfig({}, {
    budgets: { currency: 'EUR', key: { amount: 5.25, period: 'month' }, account: { amount: 0.1 + 0.2, period: 'day' }, keys: { key_a: null, key_b: { amount: 1, period: 'total' } } },
    models: { a: { local: {}, price: { input: 0.15, output: 0.6 } }, b: { local: {}, price: { input: 3, output: 15, cachedInput: 0.3 } } },
  });
  expect(config.budgets.currency).toBe('EUR');
  expect(config.budgets.key).toEqual({ limit: 5_250_000, period: 'month' });
  expect(config.budgets.account).toEqual({ limit: 300_000, period: 'day' });
  expect(config.budgets.keys).toEqual(new Map([['key_a', null], ['key_b', { limit: 1_000_000, period: 'total' }]]));
  expect(BudgetGate.wanted(config.budgets)).toBe(true);
  expect(config.models.find((model) => model.id === 'a')!.price).toEqual({ input: 0.15, output: 0.6, cachedInput: 0.15 });
  expect(config.models.find((model) => model.id === 'b')!.price).toEqual({ input: 3, output: 15, cachedInput: 0.3 });
});

it('counts a budget named only for one key as wanted, and one set to null everywhere as not', () => {
  expect(BudgetGate.wanted(loadConfig({}, { budgets: { keys: { key_a: { amount: 1, period: 'day' } } } }).budgets)).toBe(true);
  expect(BudgetGate.wanted(loadConfig({}, { budgets: { key: null, accounts: { acct_a: null } } }).budgets)).toBe(false);
});

it('refuses a bad currency, period, amount or price', () => {
  expect(() => validateConfigFile({ budgets: { currency: 'usd' } }, 'MUNJA_CONFIG')).toThrow(/currency/);
  expect(() => validateConfigFile({ budgets: { key: { amount: 5, period: 'week' } } }, 'MUNJA_CONFIG')).toThrow(/period/);
  expect(() => validateConfigFile({ budgets: { key: { amount: -1, period: 'day' } } }, 'MUNJA_CONFIG')).toThrow(/amount/);
  expect(() => validateConfigFile({ budgets: { key: { period: 'day' } } }, 'MUNJA_CONFIG')).toThrow(/amount/);
  expect(() => validateConfigFile({ models: { a: { local: {}, price: { input: 1 } } } }, 'MUNJA_CONFIG')).toThrow(/output/);
  expect(() => validateConfigFile({ models: { a: { local: {}, price: { input: -1, output: 1 } } } }, 'MUNJA_CONFIG')).toThrow(/input/);
});
