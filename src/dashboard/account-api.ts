// Sign-in, sign-out and "who am I" (sign-up is in sign-up-api.ts). A wrong password and an unknown
// email get the same answer after the same work (one hash), and both count against the throttle.
import { ApiError } from '../errors/api-error.ts';
import type { DashboardHeaders, RequestContext } from '../http/request-context.ts';
import type { Account } from '../store/store.ts';
import { addressGroup } from '../http/address-group.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { MAX_PASSWORD_CHARS } from './password-policy.ts';
import { checkSameOrigin } from './same-origin.ts';

const MAX_EMAIL = 254;

export async function signIn(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  checkSameOrigin(headers);
  const body = await json();
  const email = requiredString(body, 'email', MAX_EMAIL);
  const password = requiredString(body, 'password', MAX_PASSWORD_CHARS);
  // IPv6 by /64: the queue share and the counts are per person, not per address of a person.
  const address = addressGroup(clientAddress(headers, deps.config.dashboard.trustProxy));
  await deps.throttle.admit(email, address);
  // Any text is looked up: an account made before the address rules tightened still signs in.
  const account = await deps.store.findAccountByEmail(email);
  const hash = account && await deps.store.findPasswordHash(account.id);
  const verdict = await deps.hasher.verify(password, hash, address);
  if (account === undefined || !verdict.ok) {
    await deps.throttle.recordFailure(email);
    throw new ApiError('invalid_credentials');
  }
  await deps.throttle.recordSuccess(email, address);
  if (verdict.needsRehash) await deps.store.setPasswordHash(account.id, await deps.hasher.hash(password, address));
  await startSession(deps, ctx, headers, account);
}

export async function signOut(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  checkSameOrigin(headers);
  const signedIn = await deps.sessions.require(headers).catch(() => undefined);
  if (signedIn !== undefined) deps.sessions.checkCsrfToken(headers, signedIn);
  sendApiJson(ctx, { signedOut: true }, { 'set-cookie': await deps.sessions.end(headers) });
}

export async function me(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account, csrfToken } = await deps.sessions.require(headers);
  sendApiJson(ctx, profile(deps, account, csrfToken));
}

export async function startSession(deps: DashboardDeps, ctx: RequestContext, headers: DashboardHeaders, account: Account): Promise<void> {
  const { cookie, csrfToken } = await deps.sessions.start(headers, account.id);
  sendApiJson(ctx, profile(deps, account, csrfToken), { 'set-cookie': cookie });
}

/** What the pages need to know about the signed-in account and what it may ask for. */
function profile(deps: DashboardDeps, account: Account, csrfToken: string) {
  const { id, email, status, isAdmin, createdAt } = account;
  return {
    account: { id, email, status, isAdmin, createdAt },
    csrfToken,
    models: deps.config.models.map((model) => model.id),
    limits: { rpm: deps.config.limits.rpm, tpm: deps.config.limits.tpm },
    maxKeys: deps.config.dashboard.maxKeysPerAccount,
  };
}
