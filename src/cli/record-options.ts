// The options that set a key's or an account's expiry, budget, priority and cache setting, shared
// by `keys create`, `keys update` and `accounts budget|priority`. `none` clears a setting.
import { durationMs, expiryFrom } from '../auth/key-expiry.ts';
import { amountToMicros } from '../budget/budget-amount.ts';
import type { KeyCacheMode, KeyChange, Priority, RecordBudget } from '../store/store.ts';
import { usageError } from './cli-io.ts';

export const NONE = 'none';
const PERIODS: readonly RecordBudget['period'][] = ['day', 'month', 'total'];
const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];
const CACHE_MODES: readonly KeyCacheMode[] = ['on', 'off'];

export const KEY_RECORD_OPTIONS = {
  budget: { type: 'string' }, 'budget-period': { type: 'string' }, priority: { type: 'string' }, cache: { type: 'string' },
  'expires-at': { type: 'string' }, 'expires-in': { type: 'string' },
} as const;

export interface KeyRecordValues {
  readonly budget?: string | undefined;
  readonly 'budget-period'?: string | undefined;
  readonly priority?: string | undefined;
  readonly cache?: string | undefined;
  readonly 'expires-at'?: string | undefined;
  readonly 'expires-in'?: string | undefined;
}

/** `--budget AMOUNT --budget-period P` (or `--budget none`) as a budget in micro-units; undefined when not given. */
export function parseBudget(amount: string | undefined, period: string | undefined, command: string, names = ['--budget', '--budget-period']): RecordBudget | null | undefined {
  const [amountOption, periodOption] = names as [string, string];
  if (amount === undefined) {
    if (period !== undefined) throw usageError(`${periodOption} goes with ${amountOption} AMOUNT`, command);
    return undefined;
  }
  if (amount.trim() === NONE) {
    if (period !== undefined) throw usageError(`${amountOption} none takes no ${periodOption}`, command);
    return null;
  }
  const limit = amountToMicros(amount);
  if (limit === undefined) {
    throw usageError(`${amountOption} must be an amount in the currency with at most six decimals (e.g. 5 or 0.25), or none; got '${amount}'`, command);
  }
  if (period === undefined) throw usageError(`${amountOption} needs ${periodOption} day, month or total`, command);
  return { limit, period: oneOf(period, PERIODS, periodOption, command, false) };
}

/** A priority, or null for `none`; undefined when not given. */
export function parsePriority(value: string | undefined, option: string, command: string): Priority | null | undefined {
  if (value === undefined) return undefined;
  return value.trim() === NONE ? null : oneOf(value, PRIORITIES, option, command);
}

/** The options of KEY_RECORD_OPTIONS that were given, as a KeyChange. */
export function parseKeyRecordOptions(values: KeyRecordValues, command: string, now = Date.now()): KeyChange {
  const change: { -readonly [K in keyof KeyChange]: KeyChange[K] } = {};
  const budget = parseBudget(values.budget, values['budget-period'], command);
  if (budget !== undefined) change.budget = budget;
  const priority = parsePriority(values.priority, '--priority', command);
  if (priority !== undefined) change.priority = priority;
  if (values.cache !== undefined) change.cache = values.cache.trim() === NONE ? null : oneOf(values.cache, CACHE_MODES, '--cache', command);
  const expiresAt = parseExpiry(values['expires-at'], values['expires-in'], command, now);
  if (expiresAt !== undefined) change.expiresAt = expiresAt;
  return change;
}

function parseExpiry(at: string | undefined, within: string | undefined, command: string, now: number): number | null | undefined {
  if (at !== undefined && within !== undefined) throw usageError('give --expires-at or --expires-in, not both', command);
  if (at !== undefined) {
    if (at.trim() === NONE) return null;
    const expiresAt = expiryFrom(at.trim());
    if (expiresAt === undefined) throw usageError(`--expires-at must be an ISO-8601 date or time with its zone (e.g. 2030-01-31T00:00:00Z), or none; got '${at}'`, command);
    if (expiresAt <= now) throw usageError(`--expires-at ${at} is in the past`, command);
    return expiresAt;
  }
  if (within === undefined) return undefined;
  const ms = durationMs(within);
  if (ms === undefined || ms === 0) throw usageError(`--expires-in must be a length of time such as 30d, 12h, 45m or 90s; got '${within}'`, command);
  return now + ms;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], option: string, command: string, clearable = true): T {
  const trimmed = value.trim();
  if (!(allowed as readonly string[]).includes(trimmed)) {
    throw usageError(`${option} must be ${allowed.join(', ')}${clearable ? ' or none' : ''}; got '${value}'`, command);
  }
  return trimmed as T;
}
