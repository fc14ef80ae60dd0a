// A Store that announces the changes auth caches must drop (a key revoked or changed, an account's
// status, budget or priority changed) after each write, so every instance — and the CLI, which
// opens the same store — tells the others.
import type { KeyEvent, KeyEvents } from './key-events.ts';
import type { RedisClient } from './redis-connection.ts';
import type {
  Account, AccountChange, AccountPage, AccountStatus, ApiKeyRecord, AttemptWindow, AuditEntry, AuditQuery, KeyChange, KeySecretChange, NewAuditEntry, KeyPage, KeyWithAccount, NewKey, OneTimeToken, Session, Store, StoredResponse,
  UsageDelta, UsageRow,
} from './store.ts';

/** A Store plus the bus its changes are announced on (subscribe to it to hear other instances). */
export interface StoreWithEvents extends Store {
  readonly events: KeyEvents;
  /** The Redis connection behind the store, for health reporting; null for the embedded store. */
  readonly redis: RedisClient | null;
}

export class PublishingStore implements StoreWithEvents {
  readonly #store: Store;
  readonly events: KeyEvents;
  readonly redis: RedisClient | null;

  constructor(store: Store, events: KeyEvents, redis: RedisClient | null = null) {
    this.#store = store;
    this.events = events;
    this.redis = redis;
  }

  async setAccountStatus(email: string, status: AccountStatus): Promise<Account | undefined> {
    const account = await this.#store.setAccountStatus(email, status);
    if (account !== undefined) await this.#announce({ kind: 'account', accountId: account.id });
    return account;
  }

  async updateAccount(id: string, change: AccountChange): Promise<Account | undefined> {
    const account = await this.#store.updateAccount(id, change);
    if (account !== undefined) await this.#announce({ kind: 'account', accountId: account.id });
    return account;
  }

  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const key = await this.#store.revokeKey(keyId);
    if (key !== undefined) await this.#announce({ kind: 'key', keyId: key.id });
    return key;
  }

  async updateKey(keyId: string, change: KeyChange): Promise<ApiKeyRecord | undefined> {
    const key = await this.#store.updateKey(keyId, change);
    if (key !== undefined) await this.#announce({ kind: 'key', keyId: key.id });
    return key;
  }

  async rotateKey(keyId: string, next: KeySecretChange, graceUntil: number): Promise<ApiKeyRecord | undefined> {
    const key = await this.#store.rotateKey(keyId, next, graceUntil);
    if (key !== undefined) await this.#announce({ kind: 'key', keyId: key.id });
    return key;
  }

  keySecret(): Promise<Buffer> { return this.#store.keySecret(); }
  countAccounts(): Promise<number> { return this.#store.countAccounts(); }
  createAccount(email: string, options?: { isAdmin?: boolean }): Promise<Account> { return this.#store.createAccount(email, options); }
  findAccountByEmail(email: string): Promise<Account | undefined> { return this.#store.findAccountByEmail(email); }
  findAccountById(id: string): Promise<Account | undefined> { return this.#store.findAccountById(id); }
  setAccountAdmin(email: string, isAdmin: boolean): Promise<Account | undefined> { return this.#store.setAccountAdmin(email, isAdmin); }
  createKey(key: NewKey, maxActiveKeys?: number): Promise<ApiKeyRecord> { return this.#store.createKey(key, maxActiveKeys); }
  findKeyById(keyId: string): Promise<ApiKeyRecord | undefined> { return this.#store.findKeyById(keyId); }
  listKeyPage(accountId: string, offset: number, limit: number): Promise<KeyPage> { return this.#store.listKeyPage(accountId, offset, limit); }
  findKeyByDigest(digest: string): Promise<KeyWithAccount | undefined> { return this.#store.findKeyByDigest(digest); }
  listKeys(accountId?: string): Promise<ApiKeyRecord[]> { return this.#store.listKeys(accountId); }
  markKeysUsed(keyIds: readonly string[], at: number): Promise<void> { return this.#store.markKeysUsed(keyIds, at); }
  addUsage(deltas: readonly UsageDelta[]): Promise<void> { return this.#store.addUsage(deltas); }
  usageByDay(keyIds: readonly string[] | null, fromDay: string, toDay: string, model?: string): Promise<UsageRow[]> {
    return this.#store.usageByDay(keyIds, fromDay, toDay, model);
  }
  createAccountWithPassword(email: string, hash: string): Promise<Account | undefined> { return this.#store.createAccountWithPassword(email, hash); }
  findPasswordHash(accountId: string): Promise<string | undefined> { return this.#store.findPasswordHash(accountId); }
  setPasswordHash(accountId: string, hash: string): Promise<boolean> { return this.#store.setPasswordHash(accountId, hash); }
  listAccounts(): Promise<Account[]> { return this.#store.listAccounts(); }
  listAccountPage(offset: number, limit: number): Promise<AccountPage> { return this.#store.listAccountPage(offset, limit); }
  countActiveKeys(accountId: string): Promise<number> { return this.#store.countActiveKeys(accountId); }
  createSession(session: Session): Promise<void> { return this.#store.createSession(session); }
  findSession(digest: string): Promise<Session | undefined> { return this.#store.findSession(digest); }
  extendSession(digest: string, expiresAt: number): Promise<void> { return this.#store.extendSession(digest, expiresAt); }
  deleteSession(digest: string): Promise<void> { return this.#store.deleteSession(digest); }
  deleteAccountSessions(accountId: string, keepDigest?: string): Promise<number> { return this.#store.deleteAccountSessions(accountId, keepDigest); }
  countAttempt(name: string, windowMs: number): Promise<AttemptWindow> { return this.#store.countAttempt(name, windowMs); }
  findAttempts(name: string): Promise<AttemptWindow | undefined> { return this.#store.findAttempts(name); }
  clearAttempts(name: string): Promise<void> { return this.#store.clearAttempts(name); }
  saveToken(token: OneTimeToken): Promise<void> { return this.#store.saveToken(token); }
  takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined> { return this.#store.takeToken(digest, kind); }
  findToken(digest: string, kind: OneTimeToken['kind']): Promise<OneTimeToken | undefined> { return this.#store.findToken(digest, kind); }
  saveResponse(record: StoredResponse, maxBytesPerAccount: number): Promise<void> { return this.#store.saveResponse(record, maxBytesPerAccount); }
  findResponse(accountId: string, id: string): Promise<StoredResponse | undefined> { return this.#store.findResponse(accountId, id); }
  deleteResponse(accountId: string, id: string): Promise<boolean> { return this.#store.deleteResponse(accountId, id); }
  storedResponseBytes(accountId: string): Promise<number> { return this.#store.storedResponseBytes(accountId); }
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry> { return this.#store.appendAudit(entry); }
  listAudit(query: AuditQuery): Promise<AuditEntry[]> { return this.#store.listAudit(query); }

  async close(): Promise<void> {
    await this.events.close();
    await this.#store.close();
  }

  async #announce(event: KeyEvent): Promise<void> {
    try {
      await this.events.publish(event);
    } catch {
      // The write is done; an instance that misses the event drops the key when its cache entry
      // expires (10 s at most), so the change must not be reported as failed.
    }
  }
}
