// Requests and tokens per day per key for the last 30 days (UTC), read from the counters the API
// writes (store/usage-recorder.ts flushes them once a second).
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { keyView } from './key-view.ts';

export const USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

export async function usage(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account } = await deps.sessions.require(headers);
  const keys = await deps.store.listKeys(account.id);
  const days = lastDays(USAGE_DAYS, Date.now());
  const rows = await deps.store.usageByDay(keys.map((key) => key.id), days[0]!, days.at(-1)!);
  sendApiJson(ctx, { days, keys: keys.map(keyView), rows });
}

/** The `count` days up to and including today, oldest first, as YYYY-MM-DD (UTC). */
export function lastDays(count: number, now: number): string[] {
  const days: string[] = [];
  for (let back = count - 1; back >= 0; back--) days.push(new Date(now - back * DAY_MS).toISOString().slice(0, 10));
  return days;
}
