// The admin API's objects, as clients see them: snake_case, times in Unix seconds, never a secret.
import { microsToAmount } from '../budget/budget-amount.ts';
import type { Account, ApiKeyRecord, AuditEntry, RecordBudget } from '../store/store.ts';

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

/** A record's own budget in the currency (`budgets.currency`); null when it has none. */
function budgetObject(budget: RecordBudget | null | undefined, currency: string): Record<string, unknown> | null {
  return budget == null ? null : { amount: microsToAmount(budget.limit), period: budget.period, currency };
}

export function accountObject(account: Account, currency: string): Record<string, unknown> {
  return {
    object: 'account', id: account.id, email: account.email, status: account.status, admin: account.isAdmin,
    created_at: seconds(account.createdAt), budget: budgetObject(account.budget, currency), priority: account.priority ?? null,
    rpm: account.limits?.rpm ?? null, tpm: account.limits?.tpm ?? null,
  };
}

export function keyObject(key: ApiKeyRecord, currency: string): Record<string, unknown> {
  return {
    object: 'api_key', id: key.id, account: key.accountId, name: key.name, prefix: key.prefix, last_four: key.lastFour,
    models: key.models, rpm: key.limits.rpm, tpm: key.limits.tpm, admin: key.admin,
    created_at: seconds(key.createdAt), last_used_at: seconds(key.lastUsedAt), revoked_at: seconds(key.revokedAt),
    expires_at: seconds(key.expiresAt ?? null), budget: budgetObject(key.budget, currency), priority: key.priority ?? null, cache: key.cache ?? null,
  };
}

export function auditObject(entry: AuditEntry): Record<string, unknown> {
  return {
    object: 'audit.entry', id: entry.id, time: new Date(entry.at).toISOString(), actor: entry.actor, address: entry.address,
    action: entry.action, target: entry.target, fields: entry.fields,
  };
}
