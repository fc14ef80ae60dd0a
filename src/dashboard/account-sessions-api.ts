// What a signed-in person does when a password or a session may have leaked: change the password
// (every other session of the account ends; this one stays) and sign out everywhere else (every
// other session ends; this one stays, so the person sees the result and can change the password).
import { ApiError } from '../errors/api-error.ts';
import { addressGroup } from '../http/address-group.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { changeRequest } from './keys-api.ts';
import { MAX_PASSWORD_CHARS, passwordProblem } from './password-policy.ts';
import { recordAudit } from '../store/audit.ts';
import { dashboardActor } from './dashboard-audit.ts';

/** POST /dashboard/api/sessions/end-others → {ended}: how many other sessions ended. */
export async function endOtherSessions(deps: DashboardDeps, { ctx, headers }: DashboardRequest): Promise<void> {
  const { account, session } = await changeRequest(deps, headers);
  sendApiJson(ctx, { ended: await deps.store.deleteAccountSessions(account.id, session.digest) });
}

/**
 * POST /dashboard/api/password {currentPassword, newPassword} → {ended}. The current password is
 * asked for, and wrong guesses count against the sign-in throttle, so a stolen session alone can
 * neither change the password nor guess it.
 */
export async function changePassword(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  const { account, session } = await changeRequest(deps, headers);
  const body = await json();
  const current = requiredString(body, 'currentPassword', MAX_PASSWORD_CHARS);
  const next = requiredString(body, 'newPassword', MAX_PASSWORD_CHARS);
  const problem = passwordProblem(next, account.email);
  if (problem !== null) throw new ApiError('invalid_value', { param: 'newPassword', message: problem });
  const address = addressGroup(clientAddress(headers, deps.config.dashboard.trustProxy));
  await deps.throttle.admit(account.email, address);
  const verdict = await deps.hasher.verify(current, await deps.store.findPasswordHash(account.id), address);
  if (!verdict.ok) {
    await deps.throttle.recordFailure(account.email);
    throw new ApiError('invalid_credentials', { param: 'currentPassword', message: 'The current password is not right.' });
  }
  await deps.store.setPasswordHash(account.id, await deps.hasher.hash(next, address));
  await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'password.set', account.id);
  sendApiJson(ctx, { ended: await deps.store.deleteAccountSessions(account.id, session.digest) });
}
