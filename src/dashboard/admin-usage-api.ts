// Admins: requests, tokens and spend per day over the last 30 days, per account, for one page of accounts
// at a time (oldest first, the pages of the Accounts list), summed on the server so that the page
// gets one row per account and day, not one per key. Sign-up may be open to anyone, so one answer
// never reads every account and key: at most a page of accounts, their keys, and 30 days of rows.
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requireAdmin } from './admin-api.ts';
import { pageOffset } from './page-offset.ts';
import { USAGE_DAYS, lastDays } from './usage-api.ts';

export const ADMIN_USAGE_PAGE_SIZE = 50;

interface AccountDay { day: string; accountId: string; requests: number; promptTokens: number; completionTokens: number; costMicros: number }

/** GET /dashboard/api/admin/usage, and /dashboard/api/admin/usage/page/OFFSET for the pages after the first. */
export async function adminUsage(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  requireAdmin(await deps.sessions.require(headers));
  const offset = pageOffset(ctx.path, '/dashboard/api/admin/usage');
  const { accounts, total } = await deps.store.listAccountPage(offset, ADMIN_USAGE_PAGE_SIZE);
  const keys = (await Promise.all(accounts.map((account) => deps.store.listKeys(account.id)))).flat();
  const days = lastDays(USAGE_DAYS, Date.now());
  const rows = keys.length === 0 ? [] : await deps.store.usageByDay(keys.map((key) => key.id), days[0]!, days.at(-1)!);
  const accountOf = new Map(keys.map((key) => [key.id, key.accountId]));
  const sums = new Map<string, AccountDay>();
  for (const row of rows) {
    const accountId = accountOf.get(row.keyId) ?? '';
    const id = `${accountId} ${row.day}`;
    const sum = sums.get(id) ?? { day: row.day, accountId, requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 };
    sum.requests += row.requests;
    sum.promptTokens += row.promptTokens;
    sum.completionTokens += row.completionTokens;
    sum.costMicros += row.costMicros;
    sums.set(id, sum);
  }
  sendApiJson(ctx, {
    days,
    accounts: accounts.map((account) => ({ id: account.id, email: account.email, status: account.status })),
    rows: [...sums.values()],
    currency: deps.config.budgets.currency,
    total, offset, pageSize: ADMIN_USAGE_PAGE_SIZE,
  });
}
