// Sign-up in the operator's mode (server.dashboard.signUp): `open` makes the account at once;
// `email` takes only the address and mails it a link, and the account is made on the page that
// link opens, with the password chosen there (verify-api.ts) — so every account has an address its
// owner reads, and only that owner sets its password; `invite` needs a single-use invite from an
// admin; `closed` refuses. Every mode counts sign-ups per client address (IPv6 per /64) first.
import { ApiError } from '../errors/api-error.ts';
import { isPlausibleEmail, normaliseEmail } from '../store/email.ts';
import { addressGroup } from '../http/address-group.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { findIssuedToken, issueToken, useToken } from './one-time-tokens.ts';
import { MAX_PASSWORD_CHARS, passwordProblem } from './password-policy.ts';
import { checkSameOrigin } from './same-origin.ts';
import { startSession } from './account-api.ts';
import { recordAudit } from '../store/audit.ts';
import { dashboardActor } from './dashboard-audit.ts';

const MAX_EMAIL = 254;

/** What a verification link's token carries. */
export interface PendingSignUp { readonly email: string }

/** GET /dashboard/api/sign-up → {mode}: the sign-up page asks for a password only where it is set there. */
export async function signUpMode(deps: DashboardDeps, { ctx }: DashboardRequest): Promise<void> {
  sendApiJson(ctx, { mode: deps.config.dashboard.signUp });
}

export async function signUp(deps: DashboardDeps, request: DashboardRequest): Promise<void> {
  const { ctx, headers, json } = request;
  checkSameOrigin(headers);
  const mode = deps.config.dashboard.signUp;
  if (mode === 'closed') throw new ApiError('sign_up_disabled');
  const body = await json();
  const email = normaliseEmail(requiredString(body, 'email', MAX_EMAIL));
  if (!isPlausibleEmail(email)) {
    throw new ApiError('invalid_value', { param: 'email', message: 'Enter an email address such as ana@example.com.' });
  }
  // IPv6 by /64: the queue share and the counts are per person, not per address of a person.
  const address = addressGroup(clientAddress(headers, deps.config.dashboard.trustProxy));
  if (mode === 'email') {
    await deps.throttle.countSignUp(address);
    await sendVerification(deps, email);
    sendApiJson(ctx, { verificationSent: true });
    return;
  }
  const password = requiredString(body, 'password', MAX_PASSWORD_CHARS);
  const problem = passwordProblem(password, email);
  if (problem !== null) throw new ApiError('invalid_value', { param: 'password', message: problem });
  const invite = typeof body['invite'] === 'string' ? body['invite'] : '';
  if (mode === 'invite' && invite === '') throw new ApiError('invite_required', { param: 'invite' });
  await deps.throttle.countSignUp(address);
  // Whether the invite is good is settled before anything about the email is looked at, so a
  // made-up invite gets the same answer for a registered address as for an unknown one.
  const found = mode === 'invite' ? await findIssuedToken(deps.store, 'invite', invite) : undefined;
  if (mode === 'invite' && found === undefined) throw new ApiError('invite_required', { param: 'invite' });
  // The invite is used only after the hash: a busy hash queue (503, 429) leaves it usable.
  const hash = await deps.hasher.hash(password, address);
  if (found !== undefined && !await useToken(deps.store, found)) throw new ApiError('invite_required', { param: 'invite' });
  const account = await deps.store.createAccountWithPassword(email, hash);
  if (account === undefined) {
    // No account was made: the invite works again.
    if (found !== undefined) await deps.store.saveToken(found);
    throw new ApiError('email_unavailable', { param: 'email' });
  }
  await recordAudit(deps.store, dashboardActor(deps, headers, account.id), 'account.created', account.id, { email: account.email, via: mode });
  await startSession(deps, ctx, headers, account);
}

/**
 * The answer is the same whether or not the address already has an account, so sign-up tells
 * nobody which addresses are registered; the page the link opens then says so.
 */
async function sendVerification(deps: DashboardDeps, email: string): Promise<void> {
  const { publicUrl, verificationTtlMs } = deps.config.dashboard;
  if (deps.mailer === null || publicUrl === null) throw new Error('email sign-up without a mailer or publicUrl');
  const token = await issueToken(deps.store, 'verify', { email } satisfies PendingSignUp, verificationTtlMs);
  // In the fragment: it never reaches a server log or a Referer header; the page posts it.
  const link = `${publicUrl}/dashboard/verify#token=${token}`;
  try {
    await deps.mailer.sendVerification(email, link, Math.round(verificationTtlMs / 3_600_000));
  } catch (error) {
    deps.logger.error({ err: error }, 'sign-up verification mail not sent');
    throw new ApiError('overloaded', { message: 'The confirmation mail could not be sent. Retry in a few minutes.', headers: { 'retry-after': '60' } });
  }
}
