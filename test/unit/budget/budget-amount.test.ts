// Budget amounts in currency units to integer micro-units, exactly, and nothing that is not one.
import { expect, it } from 'vitest';
import { amountToMicros, MAX_BUDGET_AMOUNT, microsToAmount } from '../../../src/budget/budget-amount.ts';

it('reads whole amounts and up to six decimals exactly, from numbers and text', () => {
  expect(amountToMicros(5)).toBe(5_000_000);
  expect(amountToMicros('5')).toBe(5_000_000);
  expect(amountToMicros(' 0.25 ')).toBe(250_000);
  expect(amountToMicros(0)).toBe(0);
  expect(amountToMicros('0.000001')).toBe(1);
  expect(amountToMicros(0.000001)).toBe(1); // String(0.000001) is '0.000001'
  expect(amountToMicros(1.1)).toBe(1_100_000); // 1.1 * 1e6 as floats would be 1100000.0000000002
  expect(amountToMicros('123456.789012')).toBe(123_456_789_012);
  expect(amountToMicros(MAX_BUDGET_AMOUNT)).toBe(MAX_BUDGET_AMOUNT * 1_000_000);
  expect(Number.isSafeInteger(amountToMicros(MAX_BUDGET_AMOUNT)!)).toBe(true);
});

it('refuses negatives, NaN, infinities, exponents, more than six decimals and too much', () => {
  for (const bad of [-1, '-1', Number.NaN, 'NaN', Number.POSITIVE_INFINITY, '1e3', 1e-7, 0.1 + 0.2, '1.0000001', '', '.5', '5.', '1,5', 'five', MAX_BUDGET_AMOUNT + 1, '99999999999']) {
    expect(amountToMicros(bad), String(bad)).toBeUndefined();
  }
});

it('shows micro-units as the amount again', () => {
  expect(microsToAmount(5_250_000)).toBe(5.25);
  expect(microsToAmount(1)).toBe(0.000001);
  expect(microsToAmount(amountToMicros('123456.789012')!)).toBe(123456.789012);
});
