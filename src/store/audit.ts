// Appends one change to the audit log: what the admin API, the dashboard and the CLI call after a
// change succeeds. `fields` names what changed and its new value, never a secret.
import type { AuditEntry, Store } from './store.ts';

/** Who made a change: an account id (admin API, dashboard) or `cli`, and from which address. */
export interface AuditActor {
  readonly actor: string;
  readonly address: string | null;
}

export const CLI_ACTOR: AuditActor = Object.freeze({ actor: 'cli', address: null });

export type AuditAction =
  | 'account.created' | 'account.suspended' | 'account.resumed' | 'account.admin_granted' | 'account.admin_revoked'
  | 'key.created' | 'key.changed' | 'key.rotated' | 'key.revoked'
  | 'password.set' | 'invite.created' | 'config.reloaded' | 'cache.purged';

export function recordAudit(
  store: Pick<Store, 'appendAudit'>, by: AuditActor, action: AuditAction, target: string, fields: Readonly<Record<string, unknown>> = {},
): Promise<AuditEntry> {
  return store.appendAudit({ at: Date.now(), actor: by.actor, address: by.address, action, target, fields });
}
