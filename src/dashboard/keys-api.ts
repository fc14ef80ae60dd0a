// The signed-in account's keys: list, create (within the operator's models and limits; the full
// key is in this one answer only) and revoke (through the store, which announces it, so the key
// gets 401 on the API at once).
import { createApiKey } from '../auth/create-key.ts';
import { ApiError } from '../errors/api-error.ts';
import type { DashboardHeaders } from '../http/request-context.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { optionalLimit, optionalSubset, requiredName, requiredString } from './dashboard-input.ts';
import { keyView } from './key-view.ts';
import { checkSameOrigin } from './same-origin.ts';
import type { SignedIn } from './sessions.ts';

const MAX_NAME = 64;

export async function listKeys(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account } = await deps.sessions.require(headers);
  sendApiJson(ctx, { keys: (await deps.store.listKeys(account.id)).map(keyView) });
}

export async function createKey(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account } = await changeRequest(deps, headers);
  if (account.status !== 'active') {
    throw new ApiError('account_suspended', { message: 'Your account is suspended, so it cannot create keys. Ask the operator to resume it.' });
  }
  const body = await json();
  const models = new Set(deps.config.models.map((model) => model.id));
  const created = await createApiKey(deps.store, {
    accountEmail: account.email,
    name: requiredName(body, 'name', MAX_NAME),
    models: optionalSubset(body, 'models', models),
    rpm: optionalLimit(body, 'rpm', deps.config.limits.rpm),
    tpm: optionalLimit(body, 'tpm', deps.config.limits.tpm),
  });
  sendApiJson(ctx, { key: created.key, record: keyView(created.record) });
}

export async function revokeKey(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account } = await changeRequest(deps, headers);
  const body = await json();
  const id = requiredString(body, 'id', 64);
  const owned = (await deps.store.listKeys(account.id)).some((key) => key.id === id);
  const revoked = owned ? await deps.store.revokeKey(id) : undefined;
  if (revoked === undefined) throw new ApiError('key_not_found', { param: 'id' });
  sendApiJson(ctx, { record: keyView(revoked) });
}

/** A signed-in, same-origin request carrying its CSRF token: what every change needs. */
export async function changeRequest(deps: DashboardDeps, headers: DashboardHeaders): Promise<SignedIn> {
  checkSameOrigin(headers);
  const signedIn = await deps.sessions.require(headers);
  deps.sessions.checkCsrfToken(headers, signedIn);
  return signedIn;
}
