// Admins (`munja accounts admin EMAIL`) see every account and can suspend or resume it (the
// change reaches every instance's key cache through the store's events), and make invites.
import { ApiError } from '../errors/api-error.ts';
import type { AccountStatus } from '../store/store.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { changeRequest } from './keys-api.ts';
import { pageOffset } from './page-offset.ts';
import { issueToken } from './one-time-tokens.ts';
import type { SignedIn } from './sessions.ts';
import { recordAudit } from '../store/audit.ts';
import { dashboardActor } from './dashboard-audit.ts';

// Accounts a page at a time: sign-up is open to anyone, so there may be very many.
const ACCOUNT_PAGE_SIZE = 50;

/** GET /dashboard/api/admin/accounts, and /dashboard/api/admin/accounts/page/OFFSET. */
export async function listAccounts(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  requireAdmin(await deps.sessions.require(headers));
  const offset = pageOffset(ctx.path, '/dashboard/api/admin/accounts');
  const { accounts, total } = await deps.store.listAccountPage(offset, ACCOUNT_PAGE_SIZE);
  const activeKeys = await Promise.all(accounts.map((account) => deps.store.countActiveKeys(account.id)));
  sendApiJson(ctx, {
    accounts: accounts.map((account, i) => ({ ...account, activeKeys: activeKeys[i] })),
    total, offset, pageSize: ACCOUNT_PAGE_SIZE,
  });
}

export async function setAccountStatus(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const signedIn = requireAdmin(await changeRequest(deps, headers));
  const body = await json();
  const id = requiredString(body, 'id', 64);
  const status = requiredString(body, 'status', 16);
  if (status !== 'active' && status !== 'suspended') {
    throw new ApiError('invalid_value', { param: 'status', message: 'status must be "active" or "suspended".' });
  }
  if (id === signedIn.account.id) {
    throw new ApiError('invalid_value', { param: 'id', message: 'You cannot change the status of your own account.' });
  }
  const account = await deps.store.findAccountById(id);
  const changed = account && await deps.store.setAccountStatus(account.email, status satisfies AccountStatus);
  if (changed === undefined) throw new ApiError('account_not_found', { param: 'id' });
  if (changed.status !== account!.status) {
    await recordAudit(deps.store, dashboardActor(deps, headers, signedIn.account.id), status === 'suspended' ? 'account.suspended' : 'account.resumed', changed.id, { status });
  }
  sendApiJson(ctx, { account: changed });
}

/**
 * POST /dashboard/api/admin/invites: a single-use invite for `invite` sign-up, shown only in this
 * answer (the store keeps its digest); the page turns it into a link to the sign-up page.
 */
export async function createInvite(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const signedIn = requireAdmin(await changeRequest(deps, headers));
  const ttlMs = deps.config.dashboard.inviteTtlMs;
  const invite = await issueToken(deps.store, 'invite', { by: signedIn.account.id }, ttlMs);
  await recordAudit(deps.store, dashboardActor(deps, headers, signedIn.account.id), 'invite.created', '', { ttl_seconds: Math.round(ttlMs / 1000) });
  sendApiJson(ctx, { invite, expiresAt: Date.now() + ttlMs });
}

export function requireAdmin(signedIn: SignedIn): SignedIn {
  if (!signedIn.account.isAdmin || signedIn.account.status !== 'active') throw new ApiError('admin_required');
  return signedIn;
}
