// Appends one change to the audit log: what the admin API, the dashboard and the CLI call after a
// change succeeds. `fields` names what changed and its new value, never a secret.
import type { AccountChange, AuditEntry, KeyChange, Store } from './store.ts';

/** Who made a change: an account id (admin API, dashboard) or `cli`, and from which address. */
export interface AuditActor {
  readonly actor: string;
  readonly address: string | null;
}

export const CLI_ACTOR: AuditActor = Object.freeze({ actor: 'cli', address: null });

export type AuditAction =
  | 'account.created' | 'account.suspended' | 'account.resumed' | 'account.admin_granted' | 'account.admin_revoked' | 'account.changed'
  | 'key.created' | 'key.changed' | 'key.rotated' | 'key.revoked'
  | 'password.set' | 'invite.created' | 'config.reloaded' | 'config.reload_refused' | 'cache.purged';

export function recordAudit(
  store: Pick<Store, 'appendAudit'>, by: AuditActor, action: AuditAction, target: string, fields: Readonly<Record<string, unknown>> = {},
): Promise<AuditEntry> {
  return store.appendAudit({ at: Date.now(), actor: by.actor, address: by.address, action, target, fields });
}

/**
 * A key's or an account's change as the audit log keeps it: its fields as given, but an expiry as
 * ISO-8601 and a budget as its amount in currency units (5, not 5000000 micro-units).
 */
export function auditedChange(change: KeyChange & AccountChange): Record<string, unknown> {
  const { expiresAt, budget, ...rest } = change;
  const fields: Record<string, unknown> = { ...rest };
  if (expiresAt !== undefined) fields['expiresAt'] = expiresAt === null ? null : new Date(expiresAt).toISOString();
  if (budget !== undefined) fields['budget'] = budget === null ? null : { amount: budget.limit / 1_000_000, period: budget.period };
  return fields;
}
