// Redis hash fields ⇄ the frozen plain objects the Store interface promises (the same shapes the
// SQLite store returns). A field that is absent means null.
import type { Account, AccountChange, AccountStatus, ApiKeyRecord, KeyCacheMode, KeyChange, NewKey, Priority, RecordBudget, StoredResponse } from './store.ts';

export type Fields = Readonly<Record<string, string>>;

/** An HGETALL reply from a script: a flat [field, value, …] list. */
export function fieldsOf(reply: unknown): Fields {
  if (!Array.isArray(reply)) throw new TypeError('expected a list of hash fields from Redis');
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  return fields;
}

function text(fields: Fields, name: string): string {
  const value = fields[name];
  if (value === undefined) throw new TypeError(`Redis record has no ${name}`);
  return value;
}

function integer(fields: Fields, name: string): number {
  const value = Number(text(fields, name));
  if (!Number.isSafeInteger(value)) throw new TypeError(`Redis record field ${name} is not an integer`);
  return value;
}

function integerOrNull(fields: Fields, name: string): number | null {
  return fields[name] === undefined ? null : integer(fields, name);
}

function budget(fields: Fields): RecordBudget | null {
  const period = fields['budgetPeriod'];
  const limit = integerOrNull(fields, 'budgetLimit');
  return limit === null || period === undefined ? null : Object.freeze({ limit, period: period as RecordBudget['period'] });
}

export function toAccount(fields: Fields): Account {
  return Object.freeze({
    id: text(fields, 'id'),
    email: text(fields, 'email'),
    status: text(fields, 'status') as AccountStatus,
    isAdmin: text(fields, 'isAdmin') === '1',
    createdAt: integer(fields, 'createdAt'),
    budget: budget(fields),
    priority: (fields['priority'] ?? null) as Priority | null,
    limits: Object.freeze({ rpm: integerOrNull(fields, 'rpm'), tpm: integerOrNull(fields, 'tpm') }),
  });
}

export function toKey(fields: Fields): ApiKeyRecord {
  const models = fields['models'];
  return Object.freeze({
    id: text(fields, 'id'),
    accountId: text(fields, 'accountId'),
    name: text(fields, 'name'),
    prefix: text(fields, 'prefix'),
    lastFour: text(fields, 'lastFour'),
    models: models === undefined ? null : Object.freeze(JSON.parse(models) as string[]),
    limits: Object.freeze({ rpm: integerOrNull(fields, 'rpm'), tpm: integerOrNull(fields, 'tpm') }),
    createdAt: integer(fields, 'createdAt'),
    lastUsedAt: integerOrNull(fields, 'lastUsedAt'),
    revokedAt: integerOrNull(fields, 'revokedAt'),
    admin: fields['admin'] === '1',
    expiresAt: integerOrNull(fields, 'expiresAt'),
    budget: budget(fields),
    priority: (fields['priority'] ?? null) as Priority | null,
    cache: (fields['cache'] ?? null) as KeyCacheMode | null,
  });
}

/** HSET arguments for a new account. */
export function accountFields(id: string, email: string, isAdmin: boolean, createdAt: number): string[] {
  return ['id', id, 'email', email, 'status', 'active', 'isAdmin', isAdmin ? '1' : '0', 'createdAt', String(createdAt)];
}

/** HSET arguments for a new key; the digest is the record's name, not a field. */
export function keyFields(id: string, key: NewKey, createdAt: number): string[] {
  const fields = [
    'id', id, 'accountId', key.accountId, 'name', key.name, 'prefix', key.prefix, 'lastFour', key.lastFour,
    'createdAt', String(createdAt),
  ];
  if (key.models !== null) fields.push('models', JSON.stringify(key.models));
  if (key.limits.rpm !== null) fields.push('rpm', String(key.limits.rpm));
  if (key.limits.tpm !== null) fields.push('tpm', String(key.limits.tpm));
  if (key.admin === true) fields.push('admin', '1');
  const { sets } = recordChange(key);
  fields.push(...sets);
  return fields;
}

/** A change to a key's or account's optional fields: HSET arguments, and the fields to delete. */
export interface HashChange {
  readonly sets: string[];
  readonly deletes: string[];
}

/** What a KeyChange or AccountChange does to the optional hash fields (absent: untouched, null: deleted). */
export function recordChange(change: KeyChange & AccountChange): HashChange {
  const sets: string[] = [];
  const deletes: string[] = [];
  const put = (field: string, value: string | number | null | undefined) => {
    if (value === null) deletes.push(field);
    else if (value !== undefined) sets.push(field, String(value));
  };
  if (change.budget !== undefined) {
    put('budgetLimit', change.budget && change.budget.limit);
    put('budgetPeriod', change.budget && change.budget.period);
  }
  put('expiresAt', change.expiresAt);
  put('priority', change.priority);
  put('cache', change.cache);
  return { sets, deletes };
}

export function toStoredResponse(fields: Fields): StoredResponse {
  return Object.freeze({
    id: text(fields, 'id'),
    accountId: text(fields, 'accountId'),
    keyId: text(fields, 'keyId'),
    createdAt: integer(fields, 'createdAt'),
    expiresAt: integer(fields, 'expiresAt'),
    previousResponseId: fields['previousResponseId'] ?? null,
    body: text(fields, 'body'),
  });
}

/** HSET arguments for a stored response. */
export function storedResponseFields(record: StoredResponse): string[] {
  const fields = [
    'id', record.id, 'accountId', record.accountId, 'keyId', record.keyId,
    'createdAt', String(record.createdAt), 'expiresAt', String(record.expiresAt), 'body', record.body,
  ];
  if (record.previousResponseId !== null) fields.push('previousResponseId', record.previousResponseId);
  return fields;
}
