// Human and JSON renderings. Nothing here ever sees a full key or a digest.
import type { Account, ApiKeyRecord } from '../store/store.ts';

export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** `2025-01-31 14:05Z`, or `-` for never. */
export function shortTime(ms: number | null): string {
  return ms === null ? '-' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')}Z`;
}

export function keyStatus(key: ApiKeyRecord): 'active' | 'revoked' {
  return key.revokedAt === null ? 'active' : 'revoked';
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
  };
}

export function accountJson(account: Account) {
  return {
    id: account.id,
    email: account.email,
    status: account.status,
    isAdmin: account.isAdmin,
    createdAt: isoOrNull(account.createdAt),
  };
}

/** Left-aligned columns separated by two spaces, with a header row. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}
