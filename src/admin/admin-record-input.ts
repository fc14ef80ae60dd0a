// The admin API's expiry and budget fields, as the store keeps them: an expiry in Unix ms (in the
// past: 400), a budget in micro-units (an amount with more than six decimals: 400).
import { expiryFrom } from '../auth/key-expiry.ts';
import { amountToMicros } from '../budget/budget-amount.ts';
import { ApiError } from '../errors/api-error.ts';
import type { KeyChange, RecordBudget } from '../store/store.ts';
import type { BudgetBody, RecordFieldsBody } from './admin-schemas.ts';

/** Absent: undefined; null: null; else the budget in micro-units. */
export function budgetFrom(budget: BudgetBody | null | undefined): RecordBudget | null | undefined {
  if (budget === undefined || budget === null) return budget;
  const limit = amountToMicros(budget.amount);
  if (limit === undefined) {
    throw new ApiError('invalid_value', { param: 'budget', message: 'budget.amount must be an amount in the currency with at most six decimals, e.g. 5 or 0.25.' });
  }
  return { limit, period: budget.period };
}

function expiresAtFrom(value: number | string | null | undefined, now: number): number | null | undefined {
  if (value === undefined || value === null) return value;
  const expiresAt = expiryFrom(value);
  if (expiresAt === undefined) {
    throw new ApiError('invalid_value', { param: 'expires_at', message: 'expires_at must be Unix seconds or an ISO-8601 time with its zone, e.g. 2030-01-31T00:00:00Z.' });
  }
  if (expiresAt <= now) throw new ApiError('invalid_value', { param: 'expires_at', message: 'expires_at is in the past; a key must expire later than now.' });
  return expiresAt;
}

/** The expiry, budget, priority and cache fields of a key's body as a KeyChange (only those given). */
export function recordFieldsFrom(body: RecordFieldsBody, now = Date.now()): KeyChange {
  const change: { -readonly [K in keyof KeyChange]: KeyChange[K] } = {};
  const expiresAt = expiresAtFrom(body.expires_at, now);
  if (expiresAt !== undefined) change.expiresAt = expiresAt;
  const budget = budgetFrom(body.budget);
  if (budget !== undefined) change.budget = budget;
  if (body.priority !== undefined) change.priority = body.priority;
  if (body.cache !== undefined) change.cache = body.cache;
  return change;
}
