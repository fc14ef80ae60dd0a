// Failed sign-ins are counted per account (by email, whether or not it exists, so the throttle
// says nothing about which emails are registered) and per client address, in fixed windows kept
// in the store: in Redis they are shared by every instance; with the embedded store, in munja.db.
// Past either limit, sign-in is refused with 429 before any password is hashed, until the window
// ends: there is no permanent lockout. A successful sign-in clears its account's count.
// Sign-ups (each costs a hash and makes an account) count per address under the same limit.
import type { DashboardConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { normaliseEmail } from '../store/email.ts';
import type { AttemptWindow, Store } from '../store/store.ts';

export class SignInThrottle {
  readonly #store: Store;
  readonly #limits: DashboardConfig['signInThrottle'];

  constructor(store: Store, limits: DashboardConfig['signInThrottle']) {
    this.#store = store;
    this.#limits = limits;
  }

  /** Throws sign_in_throttled (with Retry-After) when the account or the address used up its failures. */
  async check(email: string, address: string): Promise<void> {
    const [account, client] = await Promise.all([
      this.#store.findAttempts(accountName(email)),
      this.#store.findAttempts(addressName(address)),
    ]);
    refuseWhenOver([
      account !== undefined && account.count >= this.#limits.accountFailures ? account : undefined,
      client !== undefined && client.count >= this.#limits.addressFailures ? client : undefined,
    ], 'failed sign-ins');
  }

  /** Counts a sign-up from `address`; throws sign_in_throttled past the limit. */
  async countSignUp(address: string): Promise<void> {
    const window = await this.#store.countAttempt(`sign-up:address:${address}`, this.#limits.windowMs);
    refuseWhenOver([window.count > this.#limits.addressFailures ? window : undefined], 'sign-ups from this address');
  }

  async recordFailure(email: string, address: string): Promise<void> {
    await Promise.all([
      this.#store.countAttempt(accountName(email), this.#limits.windowMs),
      this.#store.countAttempt(addressName(address), this.#limits.windowMs),
    ]);
  }

  async recordSuccess(email: string): Promise<void> {
    await this.#store.clearAttempts(accountName(email));
  }
}

function accountName(email: string): string {
  return `sign-in:account:${normaliseEmail(email)}`;
}

function addressName(address: string): string {
  return `sign-in:address:${address}`;
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
