// GET /v1/admin/usage: requests and tokens per key and day (UTC), filtered by account, key and day
// range (`from`, `to`: YYYY-MM-DD, inclusive; the last 30 days by default, at most 400), paged.
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ApiKeyRecord } from '../store/store.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { findAccount } from './admin-keys.ts';
import { list, pageOffset, pageRequest } from './admin-paging.ts';

export const USAGE_PATH = '/v1/admin/usage';
const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const MAX_DAYS = 400;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function adminUsage(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => {
    const query = new URLSearchParams(ctx.query);
    const page = pageRequest(query);
    if (query.has('model')) {
      throw new ApiError('unsupported_parameter', { param: 'model', message: 'Usage is kept per key and day, not per model: filter by key instead.' });
    }
    const to = dayParam(query, 'to') ?? new Date().toISOString().slice(0, 10);
    const from = dayParam(query, 'from') ?? dayOffset(to, -(DEFAULT_DAYS - 1));
    if (from > to) throw new ApiError('invalid_value', { param: 'from', message: 'from must not be after to.' });
    if (dayOffset(from, MAX_DAYS - 1) < to) throw new ApiError('invalid_value', { param: 'from', message: `The range may span at most ${MAX_DAYS} days.` });
    const keys = await keysOf(deps, query);
    const accountOf = new Map(keys.map((key) => [key.id, key.accountId]));
    const rows = keys.length === 0 ? [] : await deps.store.usageByDay(keys.map((key) => key.id), from, to);
    const offset = pageOffset(page);
    const end = Math.min(rows.length, offset + page.limit);
    const data = rows.slice(offset, end).map((row) => ({
      object: 'usage.day', day: row.day, account: accountOf.get(row.keyId) ?? null, key: row.keyId,
      requests: row.requests, prompt_tokens: row.promptTokens, completion_tokens: row.completionTokens,
    }));
    return list(data, end < rows.length, end);
  });
}

async function keysOf(deps: AdminDeps, query: URLSearchParams): Promise<ApiKeyRecord[]> {
  const keyId = query.get('key');
  const accountParam = query.get('account');
  const account = accountParam === null ? undefined : await findAccount(deps.store, accountParam, 'account');
  if (keyId !== null) {
    const key = await deps.store.findKeyById(keyId);
    if (key === undefined) throw new ApiError('key_not_found', { param: 'key' });
    return account === undefined || key.accountId === account.id ? [key] : [];
  }
  return deps.store.listKeys(account?.id);
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
