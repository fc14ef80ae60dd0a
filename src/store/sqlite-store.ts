// The embedded default Store: one SQLite file (`munja.db`) in the data directory, shared by the
// server and the operator CLI, so WAL plus a busy timeout let both write without failing.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isPlausibleEmail, mailboxOf, normaliseEmail } from './email.ts';
import { newId } from './ids.ts';
import { migrate } from './sqlite-schema.ts';
import { toAccount, toAttempts, toAuditEntry, toKey, toSession, toStoredResponse, toUsage } from './sqlite-rows.ts';
import { type Statements, prepareStatements } from './sqlite-statements.ts';
import {
  type Account, type AccountChange, type AccountPage, type AccountStatus, type ApiKeyRecord, type AttemptWindow, type AuditEntry, type AuditQuery, type KeyChange, KeyCapError, type KeyPage, type KeySecretChange, type KeyWithAccount,
  type NewAuditEntry, type NewKey, type OneTimeToken, ResponseStorageFullError, responseBytes, type Session, type Store, type StoredResponse, type UsageDelta,
  type UsageRow,
} from './store.ts';

export const DATABASE_FILE = 'munja.db';
const BUSY_TIMEOUT_MS = 5_000;
const KEY_SECRET_NAME = 'key_secret';
// Expired sessions, attempt windows, tokens and stored responses are deleted at most this often, by
// whichever write comes next: one indexed DELETE a minute instead of one per write. Until then an
// expired row is never read (every lookup compares its expiry) nor counted (see liveResponseBytes).
const CLEANUP_INTERVAL_MS = 60_000;

export class SqliteStore implements Store {
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  #secret: Buffer | undefined;
  #cleanedAt = 0;

  private constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = prepareStatements(db);
  }

  /** Opens (creating when needed) `<dataDir>/munja.db`; the directory is 0700 and the file 0600. */
  static open(dataDir: string): SqliteStore {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, DATABASE_FILE);
    // Create the file ourselves so it never exists with umask permissions: it holds the key secret.
    // SQLite gives the -wal and -shm files the same mode.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    const db = new DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec('PRAGMA foreign_keys = ON');
      migrate(db);
      return new SqliteStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  async keySecret(): Promise<Buffer> {
    if (this.#secret === undefined) {
      // Insert-if-absent then read: two processes starting together still agree on one secret.
      this.#sql.insertSecret.run(KEY_SECRET_NAME, randomBytes(32));
      const value = this.#sql.selectSecret.get(KEY_SECRET_NAME)?.['value'];
      if (!(value instanceof Uint8Array)) throw new Error('the key secret is missing from the store');
      this.#secret = Buffer.from(value);
    }
    return Buffer.from(this.#secret);
  }

  async countAccounts(): Promise<number> {
    return Number(this.#sql.countAccounts.get()?.['n'] ?? 0);
  }

  async createAccount(email: string, options: { isAdmin?: boolean } = {}): Promise<Account> {
    if (!isPlausibleEmail(email)) throw new RangeError('invalid email address');
    const normalised = normaliseEmail(email);
    this.#sql.insertAccount.run(newId('acct_'), normalised, mailboxOf(normalised), options.isAdmin ? 1 : 0, Date.now());
    const row = this.#sql.accountByEmail.get(normalised);
    if (row === undefined) throw new Error('account vanished after insert');
    return toAccount(row);
  }

  async findAccountByEmail(email: string): Promise<Account | undefined> {
    const row = this.#sql.accountByEmail.get(normaliseEmail(email));
    return row && toAccount(row);
  }

  async findAccountById(id: string): Promise<Account | undefined> {
    const row = this.#sql.accountById.get(id);
    return row && toAccount(row);
  }

  async setAccountStatus(email: string, status: AccountStatus): Promise<Account | undefined> {
    const row = this.#sql.setStatus.get(status, normaliseEmail(email));
    return row && toAccount(row);
  }

  async setAccountAdmin(email: string, isAdmin: boolean): Promise<Account | undefined> {
    const row = this.#sql.setAdmin.get(isAdmin ? 1 : 0, normaliseEmail(email));
    return row && toAccount(row);
  }

  async updateAccount(id: string, change: AccountChange): Promise<Account | undefined> {
    let updated: Account | undefined;
    this.#transaction(() => {
      const row = this.#sql.accountById.get(id);
      if (row === undefined) return;
      const account = toAccount(row);
      const budget = change.budget === undefined ? account.budget ?? null : change.budget;
      const priority = change.priority === undefined ? account.priority ?? null : change.priority;
      const rpm = change.rpm === undefined ? account.limits?.rpm ?? null : change.rpm;
      const tpm = change.tpm === undefined ? account.limits?.tpm ?? null : change.tpm;
      const changed = this.#sql.updateAccount.get(budget?.limit ?? null, budget?.period ?? null, priority, rpm, tpm, id);
      updated = changed && toAccount(changed);
    });
    return updated;
  }

  async createKey(key: NewKey, maxActiveKeys?: number): Promise<ApiKeyRecord> {
    const models = key.models === null ? null : JSON.stringify(key.models);
    let created: ApiKeyRecord | undefined;
    // Count and insert under one write lock, so that parallel creations cannot pass the cap together.
    this.#transaction(() => {
      if (maxActiveKeys !== undefined && Number(this.#sql.countActiveKeys.get(key.accountId)?.['n']) >= maxActiveKeys) {
        throw new KeyCapError(maxActiveKeys);
      }
      const budget = key.budget ?? null;
      const row = this.#sql.insertKey.get(
        newId('key_'), key.accountId, key.digest, key.name, key.prefix, key.lastFour,
        models, key.limits.rpm, key.limits.tpm, Date.now(), key.admin === true ? 1 : 0,
        key.expiresAt ?? null, budget?.limit ?? null, budget?.period ?? null, key.priority ?? null, key.cache ?? null,
      );
      if (row === undefined) throw new Error('key insert returned nothing');
      created = toKey(row);
    });
    return created!;
  }

  async findKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#sql.keyById.get(keyId);
    return row && toKey(row);
  }

  async listKeyPage(accountId: string, offset: number, limit: number): Promise<KeyPage> {
    const keys = this.#sql.keyPage.all(accountId, limit, offset).map(toKey);
    return { keys, total: Number(this.#sql.countKeys.get(accountId)?.['n'] ?? 0) };
  }

  async findKeyByDigest(digest: string): Promise<KeyWithAccount | undefined> {
    const row = this.#sql.keyByDigest.get(digest);
    if (row !== undefined) return Object.freeze({ key: toKey(row), account: toAccount(row, 'a_') });
    const old = this.#sql.keyByGraceDigest.get(digest, Date.now());
    return old && Object.freeze({ key: toKey(old), account: toAccount(old, 'a_'), secretExpiresAt: Number(old['grace_until']) });
  }

  async updateKey(keyId: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    let updated: ApiKeyRecord | undefined;
    this.#transaction(() => {
      const row = this.#sql.keyById.get(keyId);
      if (row === undefined) return;
      const key = toKey(row);
      const models = change.models === undefined ? key.models : change.models;
      const budget = change.budget === undefined ? key.budget ?? null : change.budget;
      const changed = this.#sql.updateKey.get(
        change.name ?? key.name, models === null ? null : JSON.stringify(models),
        change.rpm === undefined ? key.limits.rpm : change.rpm, change.tpm === undefined ? key.limits.tpm : change.tpm,
        change.expiresAt === undefined ? key.expiresAt ?? null : change.expiresAt, budget?.limit ?? null, budget?.period ?? null,
        change.priority === undefined ? key.priority ?? null : change.priority, change.cache === undefined ? key.cache ?? null : change.cache,
        keyId,
      );
      updated = changed === undefined ? key : toKey(changed);
    });
    return updated;
  }

  async rotateKey(keyId: string, next: KeySecretChange, graceUntil: number): Promise<ApiKeyRecord | undefined> {
    this.#cleanUp();
    let rotated: ApiKeyRecord | undefined;
    this.#transaction(() => {
      const old = this.#sql.keyById.get(keyId);
      const row = this.#sql.rotateKey.get(next.digest, next.prefix, next.lastFour, keyId);
      if (old === undefined || row === undefined) return;
      this.#sql.deleteKeyGrace.run(keyId);
      if (graceUntil > Date.now()) this.#sql.insertKeyGrace.run(String(old['digest']), keyId, graceUntil);
      rotated = toKey(row);
    });
    return rotated;
  }

  async listKeys(accountId?: string): Promise<ApiKeyRecord[]> {
    const rows = accountId === undefined ? this.#sql.allKeys.all() : this.#sql.keysOfAccount.all(accountId);
    return rows.map(toKey);
  }

  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = this.#sql.revokeKey.get(Date.now(), keyId);
    return row && toKey(row);
  }

  async markKeysUsed(keyIds: readonly string[], at: number): Promise<void> {
    this.#transaction(() => {
      for (const id of keyIds) this.#sql.markUsed.run(at, id);
    });
  }

  async addUsage(deltas: readonly UsageDelta[]): Promise<void> {
    this.#transaction(() => {
      for (const d of deltas) {
        this.#sql.addUsage.run(d.keyId, d.day, d.model, d.requests, d.promptTokens, d.completionTokens, d.costMicros);
      }
    });
  }

  async usageByDay(keyIds: readonly string[] | null, fromDay: string, toDay: string, model?: string): Promise<UsageRow[]> {
    if (keyIds === null) return this.#sql.usageOfAll.all(fromDay, model ?? null, toDay).map(toUsage);
    if (keyIds.length === 0) return [];
    return this.#sql.usageOfKeys.all(JSON.stringify(keyIds), fromDay, model ?? null, toDay).map(toUsage);
  }

  async createAccountWithPassword(email: string, passwordHash: string): Promise<Account | undefined> {
    if (!isPlausibleEmail(email)) throw new RangeError('invalid email address');
    const normalised = normaliseEmail(email);
    const mailbox = mailboxOf(normalised);
    let account: Account | undefined;
    this.#transaction(() => {
      if (this.#sql.mailboxTaken.get(mailbox) !== undefined) return;
      const row = this.#sql.insertAccountOnce.get(newId('acct_'), normalised, mailbox, Date.now());
      if (row === undefined) return;
      account = toAccount(row);
      this.#sql.upsertPassword.run(account.id, passwordHash);
    });
    return account;
  }

  async findPasswordHash(accountId: string): Promise<string | undefined> {
    const hash = this.#sql.passwordOf.get(accountId)?.['hash'];
    return typeof hash === 'string' ? hash : undefined;
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<boolean> {
    if (this.#sql.accountById.get(accountId) === undefined) return false;
    this.#sql.upsertPassword.run(accountId, passwordHash);
    return true;
  }

  async listAccounts(): Promise<Account[]> {
    return this.#sql.allAccounts.all().map((row) => toAccount(row));
  }

  async listAccountPage(offset: number, limit: number): Promise<AccountPage> {
    const accounts = this.#sql.accountPage.all(limit, offset).map((row) => toAccount(row));
    return { accounts, total: await this.countAccounts() };
  }

  async countActiveKeys(accountId: string): Promise<number> {
    return Number(this.#sql.countActiveKeys.get(accountId)?.['n'] ?? 0);
  }

  async createSession(session: Session): Promise<void> {
    this.#cleanUp();
    this.#sql.insertSession.run(session.digest, session.accountId, session.createdAt, session.expiresAt);
  }

  async findSession(digest: string): Promise<Session | undefined> {
    const row = this.#sql.sessionByDigest.get(digest, Date.now());
    return row && toSession(row);
  }

  async extendSession(digest: string, expiresAt: number): Promise<void> {
    this.#sql.extendSession.run(expiresAt, digest);
  }

  async deleteSession(digest: string): Promise<void> {
    this.#sql.deleteSession.run(digest);
  }

  async deleteAccountSessions(accountId: string, keepDigest = ''): Promise<number> {
    return Number(this.#sql.deleteAccountSessions.run(accountId, keepDigest).changes);
  }

  async countAttempt(name: string, windowMs: number): Promise<AttemptWindow> {
    this.#cleanUp();
    const now = Date.now();
    const row = this.#sql.countAttempt.get({ name, now, resetAt: now + windowMs });
    if (row === undefined) throw new Error('attempt count returned nothing');
    return toAttempts(row);
  }

  async findAttempts(name: string): Promise<AttemptWindow | undefined> {
    const row = this.#sql.attemptsByName.get(name, Date.now());
    return row && toAttempts(row);
  }

  async clearAttempts(name: string): Promise<void> {
    this.#sql.deleteAttempts.run(name);
  }

  async saveToken(token: OneTimeToken): Promise<void> {
    this.#cleanUp();
    this.#sql.insertToken.run(token.digest, token.kind, token.payload, token.expiresAt);
  }

  async findToken(digest: string, kind: OneTimeToken['kind']): Promise<OneTimeToken | undefined> {
    const row = this.#sql.tokenByDigest.get(digest, kind, Date.now());
    return row && Object.freeze({ digest, kind, payload: String(row['payload']), expiresAt: Number(row['expires_at']) });
  }

  async takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined> {
    const row = this.#sql.takeToken.get(digest, kind);
    return row !== undefined && Number(row['expires_at']) > Date.now() ? String(row['payload']) : undefined;
  }

  async saveResponse(record: StoredResponse, maxBytesPerAccount: number): Promise<void> {
    this.#cleanUp();
    const now = Date.now();
    const bytes = responseBytes(record);
    // Count and write under one write lock, so that parallel saves cannot pass the cap together.
    this.#transaction(() => {
      if (record.expiresAt <= now) {
        this.#sql.deleteResponse.run(record.accountId, record.id);
        return;
      }
      const live = Number(this.#sql.liveResponseBytes.get({ accountId: record.accountId, now })?.['n'] ?? 0);
      const replaced = Number(this.#sql.liveResponseSize.get(record.accountId, record.id, now)?.['bytes'] ?? 0);
      if (live - replaced + bytes > maxBytesPerAccount) throw new ResponseStorageFullError(maxBytesPerAccount);
      this.#sql.upsertResponse.run(
        record.accountId, record.id, record.keyId, record.createdAt, record.expiresAt, record.previousResponseId, bytes, record.body,
      );
    });
  }

  async findResponse(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const row = this.#sql.responseById.get(accountId, id, Date.now());
    return row && toStoredResponse(row);
  }

  async deleteResponse(accountId: string, id: string): Promise<boolean> {
    const row = this.#sql.deleteResponse.get(accountId, id);
    return row !== undefined && Number(row['expires_at']) > Date.now();
  }

  async storedResponseBytes(accountId: string): Promise<number> {
    return Number(this.#sql.liveResponseBytes.get({ accountId, now: Date.now() })?.['n'] ?? 0);
  }

  async appendAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    const row = this.#sql.insertAudit.get(entry.at, entry.actor, entry.address, entry.action, entry.target, JSON.stringify(entry.fields));
    if (row === undefined) throw new Error('audit insert returned nothing');
    return toAuditEntry(row);
  }

  async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    // A cursor that is not a row id matches nothing rather than everything.
    const before = query.before === undefined ? null : /^[1-9][0-9]{0,15}$/.test(query.before) ? Number(query.before) : 0;
    const rows = this.#sql.auditPage.all({
      before, actor: query.actor ?? null, target: query.target ?? null, action: query.action ?? null,
      from: query.from ?? null, to: query.to ?? null, limit: query.limit,
    });
    return rows.map(toAuditEntry);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #cleanUp(): void {
    const now = Date.now();
    if (now - this.#cleanedAt < CLEANUP_INTERVAL_MS) return;
    this.#cleanedAt = now;
    this.#sql.deleteExpiredSessions.run(now);
    this.#sql.deleteExpiredAttempts.run(now);
    this.#sql.deleteExpiredTokens.run(now);
    this.#sql.deleteExpiredResponses.run(now);
    this.#sql.deleteExpiredKeyGrace.run(now);
  }

  // IMMEDIATE takes the write lock up front, so a busy database waits (busy_timeout)
  // instead of failing when a deferred read transaction tries to upgrade.
  #transaction(work: () => void): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
