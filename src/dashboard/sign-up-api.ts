// Sign-up in the operator's mode (server.dashboard.signUp): `open` makes the account at once;
// `email` mails a link to the address and makes the account only when the link is followed (so
// every account has an address its owner reads); `invite` needs a single-use invite from an admin;
// `closed` refuses. Every mode counts sign-ups per client address (IPv6 per /64) before any hash.
import { ApiError } from '../errors/api-error.ts';
import { isPlausibleEmail, normaliseEmail } from '../store/email.ts';
import { addressGroup } from '../http/address-group.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, sendApiJson } from './dashboard-http.ts';
import { requiredString } from './dashboard-input.ts';
import { issueToken, redeemToken } from './one-time-tokens.ts';
import { MAX_PASSWORD_CHARS, passwordProblem } from './password-policy.ts';
import { checkSameOrigin } from './same-origin.ts';
import { startSession } from './account-api.ts';

const MAX_EMAIL = 254;
const TOKEN_CHARS = 64;

interface PendingSignUp { readonly email: string; readonly passwordHash: string }

export async function signUp(deps: DashboardDeps, request: DashboardRequest): Promise<void> {
  const { ctx, headers, json } = request;
  checkSameOrigin(headers);
  const mode = deps.config.dashboard.signUp;
  if (mode === 'closed') throw new ApiError('sign_up_disabled');
  const body = await json();
  const email = requiredString(body, 'email', MAX_EMAIL);
  if (!isPlausibleEmail(email)) {
    throw new ApiError('invalid_value', { param: 'email', message: 'Enter an email address such as ana@example.com.' });
  }
  const password = requiredString(body, 'password', MAX_PASSWORD_CHARS);
  const problem = passwordProblem(password, email);
  if (problem !== null) throw new ApiError('invalid_value', { param: 'password', message: problem });
  const invite = typeof body['invite'] === 'string' ? body['invite'] : '';
  if (mode === 'invite' && invite === '') throw new ApiError('invite_required', { param: 'invite' });
  // IPv6 by /64: the queue share and the counts are per person, not per address of a person.
  const address = addressGroup(clientAddress(headers, deps.config.dashboard.trustProxy));
  await deps.throttle.countSignUp(address);
  if (mode === 'email') {
    await sendVerification(deps, normaliseEmail(email), await deps.hasher.hash(password, address));
    sendApiJson(ctx, { verificationSent: true });
    return;
  }
  if (mode === 'invite') {
    if (await deps.store.findAccountByEmail(email) !== undefined) throw new ApiError('email_unavailable', { param: 'email' });
    if (await redeemToken(deps.store, 'invite', invite) === undefined) throw new ApiError('invite_required', { param: 'invite' });
  }
  const account = await deps.store.createAccountWithPassword(email, await deps.hasher.hash(password, address));
  if (account === undefined) throw new ApiError('email_unavailable', { param: 'email' });
  await startSession(deps, ctx, headers, account);
}

/** POST /dashboard/api/verify {token}: follows the mailed link; makes the account and signs it in. */
export async function verifyEmail(deps: DashboardDeps, { ctx, headers, json }: DashboardRequest): Promise<void> {
  checkSameOrigin(headers);
  const token = requiredString(await json(), 'token', TOKEN_CHARS);
  const pending = await redeemToken(deps.store, 'verify', token) as PendingSignUp | undefined;
  if (pending === undefined) throw new ApiError('invalid_link', { param: 'token' });
  const account = await deps.store.createAccountWithPassword(pending.email, pending.passwordHash);
  if (account === undefined) throw new ApiError('email_unavailable', { param: 'email' });
  await startSession(deps, ctx, headers, account);
}

/**
 * The answer is the same whether or not the address already has an account, so sign-up tells
 * nobody which addresses are registered; following the link then says so.
 */
async function sendVerification(deps: DashboardDeps, email: string, passwordHash: string): Promise<void> {
  const { publicUrl, verificationTtlMs } = deps.config.dashboard;
  if (deps.mailer === null || publicUrl === null) throw new Error('email sign-up without a mailer or publicUrl');
  const token = await issueToken(deps.store, 'verify', { email, passwordHash } satisfies PendingSignUp, verificationTtlMs);
  // In the fragment: it never reaches a server log or a Referer header; the page posts it.
  const link = `${publicUrl}/dashboard/verify#token=${token}`;
  try {
    await deps.mailer.sendVerification(email, link, Math.round(verificationTtlMs / 3_600_000));
  } catch (error) {
    deps.logger.error({ err: error }, 'sign-up verification mail not sent');
    throw new ApiError('overloaded', { message: 'The confirmation mail could not be sent. Retry in a few minutes.', headers: { 'retry-after': '60' } });
  }
}
