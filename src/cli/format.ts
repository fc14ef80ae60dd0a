// Human and JSON renderings. Nothing here ever sees a full key or a digest.
import { microsToAmount } from '../budget/budget-amount.ts';
import type { Account, ApiKeyRecord, RecordBudget } from '../store/store.ts';

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** `2025-01-31 14:05Z`, or `-` for never. */
export function shortTime(ms: number | null): string {
  return ms === null ? '-' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

export function keyStatus(key: ApiKeyRecord, now = Date.now()): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt !== null) return 'revoked';
  return key.expiresAt != null && key.expiresAt <= now ? 'expired' : 'active';
}

/** A record's own budget in currency units (`{ amount: 5, period: 'month' }`), or null. */
export function budgetJson(budget: RecordBudget | null | undefined): { amount: number; period: RecordBudget['period'] } | null {
  return budget == null ? null : { amount: microsToAmount(budget.limit), period: budget.period };
}

/** `5 per month`, `0.25 in total`, or `-`. */
export function budgetText(budget: RecordBudget | null | undefined): string {
  if (budget == null) return '-';
  return `${microsToAmount(budget.limit)} ${budget.period === 'total' ? 'in total' : `per ${budget.period}`}`;
}

export function maskedKey(key: ApiKeyRecord): string {
  return `${key.prefix}…${key.lastFour}`;
}

export function keyJson(key: ApiKeyRecord, accountEmail: string) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    lastFour: key.lastFour,
    account: accountEmail,
    models: key.models,
    rpm: key.limits.rpm,
    tpm: key.limits.tpm,
    status: keyStatus(key),
    createdAt: isoOrNull(key.createdAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
    revokedAt: isoOrNull(key.revokedAt),
    expiresAt: isoOrNull(key.expiresAt ?? null),
    budget: budgetJson(key.budget),
    priority: key.priority ?? null,
    cache: key.cache ?? null,
  };
}

export function accountJson(account: Account) {
  return {
    id: account.id,
    email: account.email,
    status: account.status,
    isAdmin: account.isAdmin,
    createdAt: isoOrNull(account.createdAt),
    budget: budgetJson(account.budget),
    priority: account.priority ?? null,
  };
}

/** Left-aligned columns separated by two spaces, with a header row. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
