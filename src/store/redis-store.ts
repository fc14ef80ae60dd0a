// The Store on Redis (REDIS_URL), shared by every worker and machine. Layout: redis-keys.ts;
// every change that touches several keys is one Lua script (redis-scripts.ts,
// redis-response-scripts.ts), so concurrent writers cannot leave an index half-written. The auth
// lookup is one round trip.
import type { RedisConfig } from '../config/config-types.ts';
import { isPlausibleEmail, mailboxOf, normaliseEmail } from './email.ts';
import { newId } from './ids.ts';
import { closeRedis, connectRedis, type RedisClient, type RedisClientOptions } from './redis-connection.ts';
import { ACCOUNT_PREFIX, ACTIVE_KEYS_PREFIX, KEY_GRACE_PREFIX, KEY_ID_PREFIX, KEY_RECORD_PREFIX, MAILBOX_PREFIX, storeKeys, usagePrefix } from './redis-keys.ts';
import { RedisCredentials } from './redis-credentials.ts';
import { RedisResponses } from './redis-responses.ts';
import { ensureKeySecret } from './redis-key-secret.ts';
import { RedisAudit } from './redis-audit.ts';
import { accountFields, fieldsOf, keyFields, recordChange, toAccount, toKey } from './redis-records.ts';
import { toUsageRows, usageFieldSuffix } from './redis-usage.ts';
import {
  ACCOUNT_BY_EMAIL, ADD_USAGE, COUNT_ACTIVE_KEYS, CREATE_ACCOUNT, CREATE_ACCOUNT_WITH_PASSWORD, CREATE_KEY, FIND_KEY, FIND_KEY_BY_ID, LIST_ACCOUNTS, LIST_KEYS, MARK_KEYS_USED,
  REVOKE_KEY, ROTATE_KEY, UPDATE_ACCOUNT, UPDATE_KEY, USAGE_BY_DAY,
} from './redis-scripts.ts';
import {
  type Account, type AccountChange, type AccountPage, type AccountStatus, type ApiKeyRecord, type AttemptWindow, type AuditEntry, type AuditQuery, type KeyChange, KeyCapError, type KeyPage, type KeySecretChange, type KeyWithAccount,
  type NewAuditEntry, type NewKey, type OneTimeToken, type Session, type Store, type StoredResponse, type UsageDelta, type UsageRow,
} from './store.ts';

const USAGE_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;
// Listing reads keys in pages so that one script never holds Redis up for long.
const LIST_PAGE = 500;
// Commands sent at once. Each one's deadline runs from when it is sent, so thousands queued behind
// each other would time out although Redis is healthy.
const BATCH = 100;

export class RedisStore implements Store {
  /** The command connection; key-events publishes on it. */
  readonly client: RedisClient;
  readonly #credentials: RedisCredentials;
  readonly #responses: RedisResponses;
  readonly #audit: RedisAudit;

  private constructor(client: RedisClient) {
    this.client = client;
    this.#audit = new RedisAudit(client);
    this.#credentials = new RedisCredentials(client);
    this.#responses = new RedisResponses(client);
  }

  /** Connects (failing fast when Redis cannot be reached); later outages are survived by reconnecting. */
  static async connect(config: RedisConfig, options: RedisClientOptions = {}): Promise<RedisStore> {
    return new RedisStore(await connectRedis(config, options));
  }

  /**
   * Read from Redis each time (once at start, once per key created), not cached: after Redis lost
   * its data another process may have written a new one, and a key digested with a stale secret
   * would be refused by every other instance.
   */
  async keySecret(): Promise<Buffer> {
    return ensureKeySecret(this.client);
  }

  async countAccounts(): Promise<number> {
    return this.client.scard(storeKeys.accounts);
  }

  async createAccount(email: string, options: { isAdmin?: boolean } = {}): Promise<Account> {
    if (!isPlausibleEmail(email)) throw new RangeError('invalid email address');
    const normalised = normaliseEmail(email);
    const id = newId('acct_');
    const now = Date.now();
    const reply = await CREATE_ACCOUNT.run(
      this.client,
      [storeKeys.accountEmail(normalised), storeKeys.accounts, storeKeys.account(id), storeKeys.accountsByTime, storeKeys.accountMailbox(mailboxOf(normalised))],
      [ACCOUNT_PREFIX, id, now, ...accountFields(id, normalised, options.isAdmin === true, now)],
    );
    return toAccount(fieldsOf(reply));
  }

  async findAccountByEmail(email: string): Promise<Account | undefined> {
    return this.#accountByEmail(email, []);
  }

  async findAccountById(id: string): Promise<Account | undefined> {
    const fields = await this.client.hgetall(storeKeys.account(id));
    return Object.keys(fields).length === 0 ? undefined : toAccount(fields);
  }

  async setAccountStatus(email: string, status: AccountStatus): Promise<Account | undefined> {
    return this.#accountByEmail(email, ['status', status]);
  }

  async setAccountAdmin(email: string, isAdmin: boolean): Promise<Account | undefined> {
    return this.#accountByEmail(email, ['isAdmin', isAdmin ? '1' : '0']);
  }

  async updateAccount(id: string, change: AccountChange): Promise<Account | undefined> {
    const { sets, deletes } = recordChange(change);
    for (const limit of ['rpm', 'tpm'] as const) {
      const value = change[limit];
      if (value === null) deletes.push(limit);
      else if (value !== undefined) sets.push(limit, String(value));
    }
    const reply = await UPDATE_ACCOUNT.run(this.client, [storeKeys.account(id)], [sets.length / 2, ...sets, ...deletes]);
    return reply === null ? undefined : toAccount(fieldsOf(reply));
  }

  async createKey(key: NewKey, maxActiveKeys?: number): Promise<ApiKeyRecord> {
    const id = newId('key_');
    try {
      const reply = await CREATE_KEY.run(
        this.client,
        [
          storeKeys.key(key.digest), storeKeys.keyId(id), storeKeys.account(key.accountId),
          storeKeys.keys, storeKeys.accountKeys(key.accountId), storeKeys.keySequence, storeKeys.activeKeys(key.accountId),
        ],
        [key.digest, id, maxActiveKeys ?? 0, KEY_ID_PREFIX, KEY_RECORD_PREFIX, ...keyFields(id, key, Date.now())],
      );
      return toKey(fieldsOf(reply));
    } catch (error) {
      if (maxActiveKeys !== undefined && error instanceof Error && error.message.includes('KEYCAP')) throw new KeyCapError(maxActiveKeys);
      throw error;
    }
  }

  async findKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const reply = await FIND_KEY_BY_ID.run(this.client, [storeKeys.keyId(keyId)], [KEY_RECORD_PREFIX]);
    return reply === null ? undefined : toKey(fieldsOf(reply));
  }

  async listKeyPage(accountId: string, offset: number, limit: number): Promise<KeyPage> {
    const index = storeKeys.accountKeys(accountId);
    const [page, total] = await Promise.all([
      LIST_KEYS.run(this.client, [index], [KEY_ID_PREFIX, KEY_RECORD_PREFIX, offset, offset + limit - 1, '1']),
      this.client.zcard(index),
    ]);
    if (!Array.isArray(page)) throw new TypeError('expected a list of keys from Redis');
    return { keys: page.map((record) => toKey(fieldsOf(record))), total };
  }

  async findKeyByDigest(digest: string): Promise<KeyWithAccount | undefined> {
    const reply = await FIND_KEY.run(this.client, [storeKeys.key(digest)], [ACCOUNT_PREFIX, storeKeys.keyGrace(digest), KEY_RECORD_PREFIX]);
    if (!Array.isArray(reply)) return undefined;
    const found = { key: toKey(fieldsOf(reply[0])), account: toAccount(fieldsOf(reply[1])) };
    return Object.freeze(reply[2] == null ? found : { ...found, secretExpiresAt: Number(reply[2]) });
  }

  async updateKey(keyId: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const sets: string[] = [];
    const deletes: string[] = [];
    if (change.name !== undefined) sets.push('name', change.name);
    if (change.models !== undefined) {
      if (change.models === null) deletes.push('models');
      else sets.push('models', JSON.stringify(change.models));
    }
    for (const limit of ['rpm', 'tpm'] as const) {
      const value = change[limit];
      if (value === null) deletes.push(limit);
      else if (value !== undefined) sets.push(limit, String(value));
    }
    const more = recordChange(change);
    sets.push(...more.sets);
    deletes.push(...more.deletes);
    const reply = await UPDATE_KEY.run(this.client, [storeKeys.keyId(keyId)], [KEY_RECORD_PREFIX, sets.length / 2, ...sets, ...deletes]);
    return reply === null ? undefined : toKey(fieldsOf(reply));
  }

  async rotateKey(keyId: string, next: KeySecretChange, graceUntil: number): Promise<ApiKeyRecord | undefined> {
    const graceMs = Math.max(0, graceUntil - Date.now());
    const reply = await ROTATE_KEY.run(this.client, [storeKeys.keyId(keyId)], [
      KEY_RECORD_PREFIX, KEY_GRACE_PREFIX, next.digest, next.prefix, next.lastFour, graceUntil, graceMs,
    ]);
    return reply === null ? undefined : toKey(fieldsOf(reply));
  }

  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    const index = accountId === undefined ? storeKeys.keys : storeKeys.accountKeys(accountId);
    const keys: ApiKeyRecord[] = [];
    for (let start = 0; ; start += LIST_PAGE) {
      const page = await LIST_KEYS.run(this.client, [index], [KEY_ID_PREFIX, KEY_RECORD_PREFIX, start, start + LIST_PAGE - 1]);
      if (!Array.isArray(page)) throw new TypeError('expected a list of keys from Redis');
      for (const record of page) keys.push(toKey(fieldsOf(record)));
      if (page.length < LIST_PAGE) return keys;
    }
  }

  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const reply = await REVOKE_KEY.run(this.client, [storeKeys.keyId(keyId)], [KEY_RECORD_PREFIX, Date.now(), ACTIVE_KEYS_PREFIX, keyId]);
    return reply === null ? undefined : toKey(fieldsOf(reply));
  }

  async markKeysUsed(keyIds: readonly string[], at: number): Promise<void> {
    if (keyIds.length === 0) return;
    await MARK_KEYS_USED.run(this.client, keyIds.map(storeKeys.keyId), [KEY_RECORD_PREFIX, at]);
  }

  /**
   * One script per key and day (they may live on different Cluster nodes). A failed batch is retried
   * whole by the caller, so after a timeout some deltas may count twice: usage is at-least-once.
   */
  async addUsage(deltas: readonly UsageDelta[]): Promise<void> {
    const ttlSeconds = USAGE_RETENTION_DAYS * 86_400;
    await inBatches(deltas, (d) => {
      const prefix = usagePrefix(d.keyId);
      return ADD_USAGE.run(
        this.client,
        [prefix + d.day, `${prefix}days`],
        [d.requests, d.promptTokens, d.completionTokens, d.costMicros, d.day, ttlSeconds, dayBefore(d.day, USAGE_RETENTION_DAYS), usageFieldSuffix(d.model)],
      );
    });
  }

  /** Every key's (`keyIds` null) reads each key ever made: usage is kept per key, in the key's slot. */
  async usageByDay(keyIds: readonly string[] | null, fromDay: string, toDay: string, model?: string): Promise<UsageRow[]> {
    const ids = keyIds === null ? await this.client.zrange(storeKeys.keys, '0', '-1') : [...new Set(keyIds)];
    const perKey = await inBatches(ids, async (keyId) => {
      const prefix = usagePrefix(keyId);
      const rows = await USAGE_BY_DAY.run(this.client, [`${prefix}days`], [prefix, fromDay, toDay]);
      return Array.isArray(rows) ? rows.flatMap((row) => toUsageRows(keyId, row, model)) : [];
    });
    return perKey.flat().sort((a, b) => compare(a.day, b.day) || compare(a.keyId, b.keyId) || compare(a.model, b.model));
  }

  async createAccountWithPassword(email: string, passwordHash: string): Promise<Account | undefined> {
    if (!isPlausibleEmail(email)) throw new RangeError('invalid email address');
    const normalised = normaliseEmail(email);
    const id = newId('acct_');
    const now = Date.now();
    const reply = await CREATE_ACCOUNT_WITH_PASSWORD.run(
      this.client,
      [
        storeKeys.accountEmail(normalised), storeKeys.accounts, storeKeys.account(id), storeKeys.password(id), storeKeys.accountsByTime,
        storeKeys.accountMailbox(mailboxOf(normalised)), storeKeys.meta,
      ],
      [id, passwordHash, now, ACCOUNT_PREFIX, MAILBOX_PREFIX, ...accountFields(id, normalised, false, now)],
    );
    return reply === null ? undefined : toAccount(fieldsOf(reply));
  }

  async listAccountPage(offset: number, limit: number): Promise<AccountPage> {
    const reply = await LIST_ACCOUNTS.run(this.client, [storeKeys.accounts, storeKeys.accountsByTime], [ACCOUNT_PREFIX, offset, offset + limit - 1]);
    const [total, accounts] = Array.isArray(reply) ? reply : [];
    if (!Array.isArray(accounts)) throw new TypeError('expected a page of accounts from Redis');
    return { accounts: accounts.map((fields) => toAccount(fieldsOf(fields))), total: Number(total) };
  }

  async countActiveKeys(accountId: string): Promise<number> {
    const keys = [storeKeys.account(accountId), storeKeys.accountKeys(accountId), storeKeys.activeKeys(accountId)];
    return Number(await COUNT_ACTIVE_KEYS.run(this.client, keys, [KEY_ID_PREFIX, KEY_RECORD_PREFIX]));
  }

  async listAccounts(): Promise<Account[]> {
    const ids = await this.client.smembers(storeKeys.accounts);
    const all = await inBatches(ids, (id) => this.findAccountById(id));
    const accounts = all.filter((account) => account !== undefined);
    return accounts.sort((a, b) => a.createdAt - b.createdAt || compare(a.id, b.id));
  }

  findPasswordHash(accountId: string): Promise<string | undefined> { return this.#credentials.findPasswordHash(accountId); }
  setPasswordHash(accountId: string, hash: string): Promise<boolean> { return this.#credentials.setPasswordHash(accountId, hash); }
  createSession(session: Session): Promise<void> { return this.#credentials.createSession(session); }
  findSession(digest: string): Promise<Session | undefined> { return this.#credentials.findSession(digest); }
  extendSession(digest: string, expiresAt: number): Promise<void> { return this.#credentials.extendSession(digest, expiresAt); }
  deleteSession(digest: string): Promise<void> { return this.#credentials.deleteSession(digest); }
  deleteAccountSessions(accountId: string, keepDigest?: string): Promise<number> { return this.#credentials.deleteAccountSessions(accountId, keepDigest); }
  countAttempt(name: string, windowMs: number): Promise<AttemptWindow> { return this.#credentials.countAttempt(name, windowMs); }
  findAttempts(name: string): Promise<AttemptWindow | undefined> { return this.#credentials.findAttempts(name); }
  clearAttempts(name: string): Promise<void> { return this.#credentials.clearAttempts(name); }
  saveToken(token: OneTimeToken): Promise<void> { return this.#credentials.saveToken(token); }
  takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined> { return this.#credentials.takeToken(digest, kind); }
  findToken(digest: string, kind: OneTimeToken['kind']): Promise<OneTimeToken | undefined> { return this.#credentials.findToken(digest, kind); }
  saveResponse(record: StoredResponse, maxBytesPerAccount: number): Promise<void> { return this.#responses.save(record, maxBytesPerAccount); }
  findResponse(accountId: string, id: string): Promise<StoredResponse | undefined> { return this.#responses.find(accountId, id); }
  deleteResponse(accountId: string, id: string): Promise<boolean> { return this.#responses.delete(accountId, id); }
  storedResponseBytes(accountId: string): Promise<number> { return this.#responses.bytes(accountId); }
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry> { return this.#audit.append(entry); }
  listAudit(query: AuditQuery): Promise<AuditEntry[]> { return this.#audit.list(query); }

  async close(): Promise<void> {
    await closeRedis(this.client);
  }

  async #accountByEmail(email: string, change: [field: string, value: string] | []): Promise<Account | undefined> {
    const reply = await ACCOUNT_BY_EMAIL.run(this.client, [storeKeys.accountEmail(normaliseEmail(email))], [ACCOUNT_PREFIX, ...change]);
    return reply === null ? undefined : toAccount(fieldsOf(reply));
  }
}

async function inBatches<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += BATCH) {
    results.push(...await Promise.all(items.slice(start, start + BATCH).map(run)));
  }
  return results;
}

/** The day `days` before `day` (both YYYY-MM-DD): older days drop out of a key's day index. */
function dayBefore(day: string, days: number): string {
  const time = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(time) ? '' : new Date(time - days * DAY_MS).toISOString().slice(0, 10);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
