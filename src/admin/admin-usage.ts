// GET /v1/admin/usage: requests, tokens and spend per key, day (UTC) and model, filtered by
// account, key, model and day range (`from`, `to`: YYYY-MM-DD, inclusive; the last 30 days by
// default, at most 400), paged. Without an account or key it reads the store's rows of the range
// over every key, not every key's record.
import { MICROS_PER_UNIT } from '../budget/price.ts';
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ApiKeyRecord, Store, UsageRow } from '../store/store.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { findAccount } from './admin-keys.ts';
import { list, pageOffset, pageRequest } from './admin-paging.ts';

export const USAGE_PATH = '/v1/admin/usage';
const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 400;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MAX_MODEL_LENGTH = 256;

export function adminUsage(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => {
    const query = new URLSearchParams(ctx.query);
    const page = pageRequest(query);
    const model = modelParam(query);
    const to = dayParam(query, 'to') ?? new Date().toISOString().slice(0, 10);
    const from = dayParam(query, 'from') ?? dayOffset(to, -(DEFAULT_DAYS - 1));
    if (from > to) throw new ApiError('invalid_value', { param: 'from', message: 'from must not be after to.' });
    if (dayOffset(from, MAX_DAYS - 1) < to) throw new ApiError('invalid_value', { param: 'from', message: `The range may span at most ${MAX_DAYS} days.` });
    const keys = await keysOf(deps, query);
    const rows = keys === null
      ? await deps.store.usageByDay(null, from, to, model)
      : keys.length === 0 ? [] : await deps.store.usageByDay(keys.map((key) => key.id), from, to, model);
    const offset = pageOffset(page);
    const end = Math.min(rows.length, offset + page.limit);
    const shown = rows.slice(offset, end);
    const accountOf = keys === null ? await accountsOfKeys(deps.store, shown) : new Map(keys.map((key) => [key.id, key.accountId]));
    const { currency } = deps.config.budgets;
    const data = shown.map((row) => ({
      object: 'usage.day', day: row.day, account: accountOf.get(row.keyId) ?? null, key: row.keyId, model: row.model === '' ? null : row.model,
      requests: row.requests, prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens,
      cost: row.costMicros / MICROS_PER_UNIT, cost_micros: row.costMicros, currency,
    }));
    return list(data, end < rows.length, end);
  });
}

/** The keys filtered by, or null when neither an account nor a key is given (every key). */
async function keysOf(deps: AdminDeps, query: URLSearchParams): Promise<ApiKeyRecord[] | null> {
  const keyId = query.get('key');
  const accountParam = query.get('account');
  if (keyId === null && accountParam === null) return null;
  const account = accountParam === null ? undefined : await findAccount(deps.store, accountParam, 'account');
  if (keyId !== null) {
    const key = await deps.store.findKeyById(keyId);
    if (key === undefined) throw new ApiError('key_not_found', { param: 'key' });
    return account === undefined || key.accountId === account.id ? [key] : [];
  }
  return deps.store.listKeys(account?.id);
}

/** The account of each key in `rows`: one look-up per key of the page. */
async function accountsOfKeys(store: Store, rows: readonly UsageRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((row) => row.keyId))];
  const keys = await Promise.all(ids.map((id) => store.findKeyById(id)));
  return new Map(keys.flatMap((key) => (key === undefined ? [] : [[key.id, key.accountId] as const])));
}

function modelParam(query: URLSearchParams): string | undefined {
  const value = query.get('model');
  if (value === null) return undefined;
  if (value === '' || value.length > MAX_MODEL_LENGTH) {
    throw new ApiError('invalid_value', { param: 'model', message: `model must be a model id of 1 to ${MAX_MODEL_LENGTH} characters.` });
  }
  return value;
}

function dayParam(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new ApiError('invalid_value', { param: name, message: `${name} must be a day, YYYY-MM-DD (UTC).` });
  }
  return value;
}

function dayOffset(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}
