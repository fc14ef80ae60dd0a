// Sign-in throttling that can be neither raced nor turned against the account's owner.
//
// Every attempt is counted before its password is hashed, with one atomic increment in the store
// (an upsert in munja.db, a Lua INCR in Redis, shared by every instance), and refused with 429
// once over the limit: 40 attempts sent at once get at most `accountFailures` hashes between them.
// Counted per (account, address) pair and per address (IPv6 by /64, address-group.ts), never per
// account alone: failures from elsewhere must not lock the owner out. Failures on an account from
// all addresses together only slow its sign-ins down, by a delay that doubles with each failure past
// `accountFailures` up to MAX_DELAY_MS. Accounts are named by email whether or not they exist, so
// the throttle says nothing about which emails are registered. A successful sign-in clears its
// account's counts; windows are fixed and end on their own: there is no permanent lockout.
// Sign-ups (each costs a hash and makes an account) are counted per address under their own limit.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DashboardConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { normaliseEmail } from '../store/email.ts';
import type { AttemptWindow, Store } from '../store/store.ts';
import { addressGroup } from '../http/address-group.ts';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

type Limits = Pick<DashboardConfig, 'signInThrottle' | 'signUpThrottle'>;

export class SignInThrottle {
  readonly #store: Store;
  readonly #limits: Limits;

  constructor(store: Store, limits: Limits) {
    this.#store = store;
    this.#limits = limits;
  }

  /**
   * Counts a sign-in attempt before its hash; throws sign_in_throttled (with Retry-After) past the
   * pair's or the address's limit, and waits out the account's slowdown.
   */
  async admit(email: string, address: string): Promise<void> {
    const { accountFailures, addressFailures, windowMs } = this.#limits.signInThrottle;
    const group = addressGroup(address);
    const [pair, client, account] = await Promise.all([
      this.#store.countAttempt(pairName(email, group), windowMs),
      this.#store.countAttempt(`sign-in:address:${group}`, windowMs),
      this.#store.findAttempts(accountName(email)),
    ]);
    refuseWhenOver([
      pair.count > accountFailures ? pair : undefined,
      client.count > addressFailures ? client : undefined,
    ], 'sign-ins');
    const excess = (account?.count ?? 0) - accountFailures;
    if (excess >= 0) await sleep(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(excess, 16)));
  }

  /** Counts a sign-up from `address`; throws sign_in_throttled past the limit. */
  async countSignUp(address: string): Promise<void> {
    const { addressSignUps, windowMs } = this.#limits.signUpThrottle;
    const window = await this.#store.countAttempt(`sign-up:address:${addressGroup(address)}`, windowMs);
    refuseWhenOver([window.count > addressSignUps ? window : undefined], 'sign-ups from this address');
  }

  async recordFailure(email: string): Promise<void> {
    await this.#store.countAttempt(accountName(email), this.#limits.signInThrottle.windowMs);
  }

  async recordSuccess(email: string, address: string): Promise<void> {
    await Promise.all([
      this.#store.clearAttempts(accountName(email)),
      this.#store.clearAttempts(pairName(email, addressGroup(address))),
    ]);
  }
}

function accountName(email: string): string {
  return `sign-in:account:${normaliseEmail(email)}`;
}

function pairName(email: string, group: string): string {
  return `sign-in:pair:${group}:${normaliseEmail(email)}`;
}

function formatWait(seconds: number): string {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

function refuseWhenOver(windows: ReadonlyArray<AttemptWindow | undefined>, what: string): void {
  const blocked = windows.filter((window): window is AttemptWindow => window !== undefined);
  if (blocked.length === 0) return;
  const resetAt = Math.max(...blocked.map((window) => window.resetAt));
  const seconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
  throw new ApiError('sign_in_throttled', {
    message: `Too many ${what}. Try again in ${formatWait(seconds)}.`,
    headers: { 'retry-after': String(seconds) },
  });
}
