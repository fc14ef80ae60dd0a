// The page a sign-up confirmation mail links to (email sign-up): it shows the address the link
// confirms and asks for the new account's password, so the account's password is chosen by whoever
// reads the mailbox, and nothing happens — no account, no session replaced — until that person
// submits it. A link is used only once the password hash succeeded: a busy queue does not waste it.
import { ApiError } from '../errors/api-error.ts';
import type { OneTimeToken } from '../store/store.ts';
import { addressGroup } from '../http/address-group.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { findIssuedToken, useToken } from './one-time-tokens.ts';
import { MAX_PASSWORD_CHARS, passwordProblem } from './password-policy.ts';
import { checkSameOrigin } from './same-origin.ts';
import { startSession } from './account-api.ts';
import type { PendingSignUp } from './sign-up-api.ts';
import { recordAudit } from '../store/audit.ts';
import { dashboardActor } from './dashboard-audit.ts';

const TOKEN_CHARS = 64;

/** POST /dashboard/api/verify/check {token} → {email}: what the link confirms, leaving it unused. */
export async function checkVerification(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  checkSameOrigin(headers);
  const { pending } = await findPending(deps, requiredString(await json(), 'token', TOKEN_CHARS));
  sendApiJson(ctx, { email: pending.email });
}

/** POST /dashboard/api/verify {token, password}: makes the account with that password and signs it in. */
export async function verifyEmail(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  checkSameOrigin(headers);
  const body = await json();
  const { found, pending } = await findPending(deps, requiredString(body, 'token', TOKEN_CHARS));
  const password = requiredString(body, 'password', MAX_PASSWORD_CHARS);
  const problem = passwordProblem(password, pending.email);
  if (problem !== null) throw new ApiError('invalid_value', { param: 'password', message: problem });
  const hash = await deps.hasher.hash(password, addressGroup(clientAddress(headers, deps.config.dashboard.trustProxy)));
  if (!await useToken(deps.store, found)) throw new ApiError('invalid_link', { param: 'token' });
  const account = await deps.store.createAccountWithPassword(pending.email, hash);
  if (account === undefined) throw new ApiError('email_unavailable', { param: 'email' });
  await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'account.created', account.id, { email: account.email, via: 'email' });
  await startSession(deps, ctx, headers, account);
}

async function findPending(deps: DashboardDeps, token: string): Promise<{ found: OneTimeToken; pending: PendingSignUp }> {
  const found = await findIssuedToken(deps.store, 'verify', token);
  if (found === undefined) throw new ApiError('invalid_link', { param: 'token' });
  return { found, pending: JSON.parse(found.payload) as PendingSignUp };
}
