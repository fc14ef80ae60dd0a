// Admins: requests and tokens per day over the last 30 days for the whole service, per account,
// summed on the server so that the page gets one row per account and day, not one per key.
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requireAdmin } from './admin-api.ts';
import { USAGE_DAYS, lastDays } from './usage-api.ts';

interface AccountDay { day: string; accountId: string; requests: number; promptTokens: number; completionTokens: number }

export async function adminUsage(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  requireAdmin(await deps.sessions.require(headers));
  const [accounts, keys] = await Promise.all([deps.store.listAccounts(), deps.store.listKeys()]);
  const days = lastDays(USAGE_DAYS, Date.now());
  const rows = keys.length === 0 ? [] : await deps.store.usageByDay(keys.map((key) => key.id), days[0]!, days.at(-1)!);
  const accountOf = new Map(keys.map((key) => [key.id, key.accountId]));
  const sums = new Map<string, AccountDay>();
  for (const row of rows) {
    const accountId = accountOf.get(row.keyId) ?? '';
    const id = `${accountId} ${row.day}`;
    const sum = sums.get(id) ?? { day: row.day, accountId, requests: 0, promptTokens: 0, completionTokens: 0 };
    sum.requests += row.requests;
    sum.promptTokens += row.promptTokens;
    sum.completionTokens += row.completionTokens;
    sums.set(id, sum);
  }
  sendApiJson(ctx, {
    days,
    accounts: accounts.map((account) => ({ id: account.id, email: account.email, status: account.status })),
    rows: [...sums.values()],
  });
}
