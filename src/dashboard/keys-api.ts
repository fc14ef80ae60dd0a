// The signed-in account's keys: list (a page at a time, newest first), create (within the
// operator's models, limits and key cap; the full key is in this one answer only) and revoke
// (through the store, which announces it, so the key gets 401 on the API at once).
import { createApiKey } from '../auth/create-key.ts';
import { ApiError } from '../errors/api-error.ts';
import { KeyCapError } from '../store/store.ts';
import type { DashboardHeaders } from '../http/request-context.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { optionalLimit, optionalSubset, requiredName, requiredString } from './dashboard-input.ts';
import { keyBudgets } from './key-budgets.ts';
import { keyView } from './key-view.ts';
import { pageOffset } from './page-offset.ts';
import { checkSameOrigin } from './same-origin.ts';
import type { SignedIn } from './sessions.ts';
import { recordAudit } from '../store/audit.ts';
import { dashboardActor } from './dashboard-audit.ts';

const MAX_NAME = 64;
// A page of keys is a few KiB of JSON, whatever the account holds (revoked keys stay listed).
export const KEY_PAGE_SIZE = 25;

/** GET /dashboard/api/keys, and /dashboard/api/keys/page/OFFSET for the pages after the first. */
export async function listKeys(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account } = await deps.sessions.require(headers);
  const offset = pageOffset(ctx.path, '/dashboard/api/keys');
  const { keys, total } = await deps.store.listKeyPage(account.id, offset, KEY_PAGE_SIZE);
  const budgets = await keyBudgets(deps.budgets, account, keys);
  sendApiJson(ctx, { keys: keys.map((key, index) => ({ ...keyView(key), budget: budgets[index] })), total, offset, pageSize: KEY_PAGE_SIZE });
}

export async function createKey(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account } = await changeRequest(deps, headers);
  if (account.status !== 'active') {
    throw new ApiError('account_suspended', { message: 'Your account is suspended, so it cannot create keys. Ask the operator to resume it.' });
  }
  const body = await json();
  const models = new Set(deps.config.models.map((model) => model.id));
  const maxKeys = deps.config.dashboard.maxKeysPerAccount;
  const created = await createApiKey(deps.store, {
    accountEmail: account.email,
    name: requiredName(body, 'name', MAX_NAME),
    models: optionalSubset(body, 'models', models),
    rpm: optionalLimit(body, 'rpm', deps.config.limits.rpm),
    tpm: optionalLimit(body, 'tpm', deps.config.limits.tpm),
    maxKeys,
  }).catch((error: unknown) => {
    if (!(error instanceof KeyCapError)) throw error;
    throw new ApiError('key_limit_reached', { message: `This account has ${maxKeys} keys, as many as it may have. Revoke one it no longer needs to create another.` });
  });
  const { record } = created;
  await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'key.created', record.id, {
    account: record.accountId, name: record.name, models: record.models, rpm: record.limits.rpm, tpm: record.limits.tpm, admin: record.admin,
  });
  sendApiJson(ctx, { key: created.key, record: keyView(record) });
}

export async function revokeKey(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account } = await changeRequest(deps, headers);
  const body = await json();
  const id = requiredString(body, 'id', 64);
  const owned = (await deps.store.findKeyById(id))?.accountId === account.id;
  const before = Date.now();
  const revoked = owned ? await deps.store.revokeKey(id) : undefined;
  if (revoked === undefined) throw new ApiError('key_not_found', { param: 'id' });
  if (revoked.revokedAt !== null && revoked.revokedAt >= before) await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'key.revoked', revoked.id);
  sendApiJson(ctx, { record: keyView(revoked) });
}

/** A signed-in, same-origin request carrying its CSRF token: what every change needs. */
export async function changeRequest(deps: DashboardDeps, headers: DashboardHeaders): Promise<SignedIn> {
  checkSameOrigin(headers);
  const signedIn = await deps.sessions.require(headers);
  deps.sessions.checkCsrfToken(headers, signedIn);
  return signedIn;
}
