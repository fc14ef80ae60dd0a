// Budget amounts as people write them, in currency units (5 is 5 USD), to the integer micro-units
// budgets are kept in, exactly: decimals are read as digits, never through a float product.
import { MICROS_PER_UNIT } from './price.ts';

/** The largest budget amount taken, in currency units (its micro-units stay a safe integer). */
export const MAX_BUDGET_AMOUNT = 1_000_000_000;
const DECIMAL = /^(\d{1,10})(?:\.(\d{1,6}))?$/;

/**
 * The micro-units of a non-negative amount with at most six decimals (a number, or its text);
 * undefined for anything else (negative, NaN, more decimals, an exponent, above MAX_BUDGET_AMOUNT).
 */
export function amountToMicros(amount: number | string): number | undefined {
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const micros = Number(match[1]) * MICROS_PER_UNIT + Number((match[2] ?? '').padEnd(6, '0'));
  return micros <= MAX_BUDGET_AMOUNT * MICROS_PER_UNIT ? micros : undefined;
}

/** Micro-units as the amount in currency units (a number: 5_000_000 is 5). */
export function microsToAmount(micros: number): number {
  return micros / MICROS_PER_UNIT;
}
