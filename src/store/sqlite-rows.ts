// Turns node:sqlite rows into the frozen plain objects the Store interface promises.
import type { SQLOutputValue } from 'node:sqlite';
import type { Account, AccountStatus, ApiKeyRecord, AuditEntry, AttemptWindow, KeyCacheMode, Priority, RecordBudget, Session, StoredResponse, UsageRow } from './store.ts';

type Row = Record<string, SQLOutputValue>;

function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new TypeError(`column ${column} is not text`);
  return value;
}

function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number') throw new TypeError(`column ${column} is not an integer`);
  return value;
}

function textOrNull(row: Row, column: string): string | null {
  return row[column] === null ? null : text(row, column);
}

function integerOrNull(row: Row, column: string): number | null {
  return row[column] === null ? null : integer(row, column);
}

function models(row: Row, column: string): readonly string[] | null {
  const value = row[column];
  if (value === null) return null;
  return Object.freeze(JSON.parse(text(row, column)) as string[]);
}

function budget(row: Row, prefix: string): RecordBudget | null {
  const limit = integerOrNull(row, `${prefix}budget_limit`);
  const period = textOrNull(row, `${prefix}budget_period`);
  return limit === null || period === null ? null : Object.freeze({ limit, period: period as RecordBudget['period'] });
}

/** Reads an account from columns named with `prefix` (the key lookup joins both tables). */
export function toAccount(row: Row, prefix = ''): Account {
  return Object.freeze({
    id: text(row, `${prefix}id`),
    email: text(row, `${prefix}email`),
    status: text(row, `${prefix}status`) as AccountStatus,
    isAdmin: integer(row, `${prefix}is_admin`) === 1,
    createdAt: integer(row, `${prefix}created_at`),
    budget: budget(row, prefix),
    priority: textOrNull(row, `${prefix}priority`) as Priority | null,
    limits: Object.freeze({ rpm: integerOrNull(row, `${prefix}rpm`), tpm: integerOrNull(row, `${prefix}tpm`) }),
  });
}

export function toKey(row: Row): ApiKeyRecord {
  return Object.freeze({
    id: text(row, 'id'),
    accountId: text(row, 'account_id'),
    name: text(row, 'name'),
    prefix: text(row, 'prefix'),
    lastFour: text(row, 'last_four'),
    models: models(row, 'models'),
    limits: Object.freeze({ rpm: integerOrNull(row, 'rpm'), tpm: integerOrNull(row, 'tpm') }),
    createdAt: integer(row, 'created_at'),
    lastUsedAt: integerOrNull(row, 'last_used_at'),
    revokedAt: integerOrNull(row, 'revoked_at'),
    admin: integer(row, 'is_admin') === 1,
    expiresAt: integerOrNull(row, 'expires_at'),
    budget: budget(row, ''),
    priority: textOrNull(row, 'priority') as Priority | null,
    cache: textOrNull(row, 'cache') as KeyCacheMode | null,
  });
}

export function toAuditEntry(row: Row): AuditEntry {
  return Object.freeze({
    id: String(integer(row, 'id')),
    at: integer(row, 'at'),
    actor: text(row, 'actor'),
    address: textOrNull(row, 'address'),
    action: text(row, 'action'),
    target: text(row, 'target'),
    fields: Object.freeze(JSON.parse(text(row, 'fields')) as Record<string, unknown>),
  });
}

export function toUsage(row: Row): UsageRow {
  return Object.freeze({
    keyId: text(row, 'key_id'),
    day: text(row, 'day'),
    model: text(row, 'model'),
    requests: integer(row, 'requests'),
    promptTokens: integer(row, 'prompt_tokens'),
    completionTokens: integer(row, 'completion_tokens'),
    costMicros: integer(row, 'cost_micros'),
  });
}

export function toSession(row: Row): Session {
  return Object.freeze({
    digest: text(row, 'digest'),
    accountId: text(row, 'account_id'),
    createdAt: integer(row, 'created_at'),
    expiresAt: integer(row, 'expires_at'),
  });
}

export function toAttempts(row: Row): AttemptWindow {
  return Object.freeze({ count: integer(row, 'count'), resetAt: integer(row, 'reset_at') });
}

export function toStoredResponse(row: Row): StoredResponse {
  return Object.freeze({
    id: text(row, 'id'),
    accountId: text(row, 'account_id'),
    keyId: text(row, 'key_id'),
    createdAt: integer(row, 'created_at'),
    expiresAt: integer(row, 'expires_at'),
    previousResponseId: textOrNull(row, 'previous_response_id'),
    body: text(row, 'body'),
  });
}
