// The band a request waits in when its model is saturated: the key's own (set on the key), else
// `limits.priority.keys`, else the account's own, else `limits.priority.accounts`, else
// `limits.priority`'s default — the more specific first, a stored setting before the file's.
import type { Principal } from '../auth/authenticator.ts';
import type { PriorityBand, PriorityConfig } from '../config/config-types.ts';
import { BANDS } from './fair-queue.ts';

export function priorityOf(principal: Principal, config: PriorityConfig): PriorityBand {
  return principal.keyPriority
    ?? config.keys.get(principal.keyId)
    ?? principal.accountPriority
    ?? config.accounts.get(principal.accountId)
    ?? config.default;
}

/** The band's index in BANDS. */
export function bandOf(principal: Principal, config: PriorityConfig): number {
  return BANDS.indexOf(priorityOf(principal, config));
}
