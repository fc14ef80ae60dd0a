// Requests, tokens and spend per day, key and model for the last 30 days (UTC), read from the counters the API writes
// (store/usage-recorder.ts flushes them once a second), for one page of the account's keys at a
// time (newest first, the same pages as the key list): at most 25 keys × 30 days of rows per
// request, so the (synchronous, for munja.db) query stays short however many keys the account made.
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { keyView } from './key-view.ts';
import { KEY_PAGE_SIZE } from './keys-api.ts';
import { pageOffset } from './page-offset.ts';

export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

/** GET /dashboard/api/usage, and /dashboard/api/usage/page/OFFSET. */
export async function usage(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account } = await deps.sessions.require(headers);
  const offset = pageOffset(ctx.path, '/dashboard/api/usage');
  const { keys, total } = await deps.store.listKeyPage(account.id, offset, KEY_PAGE_SIZE);
  const days = lastDays(USAGE_DAYS, Date.now());
  const rows = await deps.store.usageByDay(keys.map((key) => key.id), days[0]!, days.at(-1)!);
  sendApiJson(ctx, { days, keys: keys.map(keyView), rows, currency: deps.config.budgets.currency, total, offset, pageSize: KEY_PAGE_SIZE });
}

/** The `count` days up to and including today, oldest first, as YYYY-MM-DD (UTC). */
export function lastDays(count: number, now: number): string[] {
  const days: string[] = [];
  for (let back = count - 1; back >= 0; back--) days.push(new Date(now - back * DAY_MS).toISOString().slice(0, 10));
  return days;
}
