// Admins: the audit log, newest first, 50 entries at a time (`/before/ID` for the older ones), and
// admin keys for their own account (for the admin API; shown once, audited).
import { createApiKey } from '../auth/create-key.ts';
import { ApiError } from '../errors/api-error.ts';
import { recordAudit } from '../store/audit.ts';
import { requireAdmin } from './admin-api.ts';
import { dashboardActor } from './dashboard-audit.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredName } from './dashboard-input.ts';
import { keyView } from './key-view.ts';
import { changeRequest } from './keys-api.ts';

export const AUDIT_API_PATH = '/dashboard/api/admin/audit';
export const AUDIT_BEFORE_PREFIX = `${AUDIT_API_PATH}/before/`;
const AUDIT_PAGE_SIZE = 50;
const CURSOR = /^[0-9-]{1,41}$/;

/** GET /dashboard/api/admin/audit, and /dashboard/api/admin/audit/before/ID for older entries. */
export async function listAudit(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  requireAdmin(await deps.sessions.require(headers));
  const before = ctx.path === AUDIT_API_PATH ? undefined : ctx.path.slice(AUDIT_BEFORE_PREFIX.length);
  if (before !== undefined && !CURSOR.test(before)) throw new ApiError('unknown_route');
  const entries = await deps.store.listAudit({ limit: AUDIT_PAGE_SIZE + 1, ...(before === undefined ? {} : { before }) });
  sendApiJson(ctx, { entries: entries.slice(0, AUDIT_PAGE_SIZE), hasMore: entries.length > AUDIT_PAGE_SIZE });
}

/** POST /dashboard/api/admin/keys {name}: an admin key for the signed-in admin's account. */
export async function createAdminKey(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account } = requireAdmin(await changeRequest(deps, headers));
  const body = await json();
  const created = await createApiKey(deps.store, { accountEmail: account.email, name: requiredName(body, 'name', 64), admin: true });
  const { record } = created;
  await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'key.created', record.id, {
    account: record.accountId, name: record.name, models: null, rpm: null, tpm: null, admin: true,
  });
  sendApiJson(ctx, { key: created.key, record: keyView(record) });
}
