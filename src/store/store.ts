// The Store interface: accounts, keys, usage, dashboard credentials and stored Responses.
// Implemented by sqlite-store (embedded default) and redis-store. Every method is async so both
// implementations share one contract suite.

export type AccountStatus = 'active' | 'suspended';

/** A scheduling band: higher bands leave the admission queue first. */
export type Priority = 'high' | 'normal' | 'low';

/** A spend budget kept on a key or an account: at most `limit` micro-units of the currency per period. */
export interface RecordBudget {
  readonly limit: number;
  readonly period: 'day' | 'month' | 'total';
}

/**
 * A key's response-cache setting: `on` caches its eligible requests on any model, `off` bars it
 * from the cache (even with `x-munja-cache: on`). Absent or null: the model's setting and the header decide.
 */
export type KeyCacheMode = 'on' | 'off';

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly status: AccountStatus;
  readonly isAdmin: boolean;
  readonly createdAt: number; // Unix ms
  /** Shared by the account's keys; absent or null: the config's (`budgets.accounts`, `budgets.account`). */
  readonly budget?: RecordBudget | null;
  /** Absent or null: `limits.priority`'s default. */
  readonly priority?: Priority | null;
  /** The buckets shared by the account's keys; a null field: the config's (`limits.account`). */
  readonly limits?: KeyLimits;
}

export interface KeyLimits {
  /** Requests per minute; null means the operator's default. */
  readonly rpm: number | null;
  /** Tokens per minute; null means the operator's default. */
  readonly tpm: number | null;
}

export interface ApiKeyRecord {
  readonly id: string; // key_…
  readonly accountId: string;
  readonly name: string;
  /** `sk_munja_` + the first characters of the secret, for display. */
  readonly prefix: string;
  readonly lastFour: string;
  /** Model ids this key may use; null means all. */
  readonly models: readonly string[] | null;
  readonly limits: KeyLimits;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
  /** The admin scope: accepted only on the admin API (/v1/admin/…), refused everywhere else. */
  readonly admin: boolean;
  /** From this time (Unix ms) the key is refused 401 like a revoked one; absent or null: never. */
  readonly expiresAt?: number | null;
  /** The key's own budget; absent or null: the config's (`budgets.keys`, `budgets.key`). */
  readonly budget?: RecordBudget | null;
  /** Absent or null: the account's priority. */
  readonly priority?: Priority | null;
  readonly cache?: KeyCacheMode | null;
}

/** What authentication needs in one lookup. */
export interface KeyWithAccount {
  readonly key: ApiKeyRecord;
  readonly account: Account;
  /** When the secret looked up stops working (Unix ms): a rotated key's old secret, in its grace. Absent: never. */
  readonly secretExpiresAt?: number;
}

/** What updateKey changes; an absent field is left as it is, a null one cleared. */
export interface KeyChange {
  readonly name?: string;
  readonly models?: readonly string[] | null;
  readonly rpm?: number | null;
  readonly tpm?: number | null;
  readonly expiresAt?: number | null;
  readonly budget?: RecordBudget | null;
  readonly priority?: Priority | null;
  readonly cache?: KeyCacheMode | null;
}

/** What updateAccount changes; an absent field is left as it is, a null one cleared. */
export interface AccountChange {
  readonly budget?: RecordBudget | null;
  readonly priority?: Priority | null;
  readonly rpm?: number | null;
  readonly tpm?: number | null;
}

/** A rotated key's new secret, as the store keeps it (see NewKey). */
export interface KeySecretChange {
  readonly digest: string;
  readonly prefix: string;
  readonly lastFour: string;
}

export interface NewKey {
  readonly accountId: string;
  readonly digest: string; // hex HMAC-SHA-256 of the full key
  readonly name: string;
  readonly prefix: string;
  readonly lastFour: string;
  readonly models: readonly string[] | null;
  readonly limits: KeyLimits;
  /** The admin scope (absent: an ordinary key). */
  readonly admin?: boolean;
  /** Absent or null: never expires, no budget of its own, the account's priority, no cache setting. */
  readonly expiresAt?: number | null;
  readonly budget?: RecordBudget | null;
  readonly priority?: Priority | null;
  readonly cache?: KeyCacheMode | null;
}

export interface UsageDelta {
  readonly keyId: string;
  readonly day: string; // YYYY-MM-DD, UTC
  /** The model id the client asked for ('' for usage counted before models were). */
  readonly model: string;
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** What the requests cost, in micro-units of the budgets' currency (0 without a price). */
  readonly costMicros: number;
}

export interface UsageRow extends UsageDelta {}

/** A dashboard session. The store only ever sees a digest of the session id. */
export interface Session {
  readonly digest: string; // hex SHA-256 of the session id
  readonly accountId: string;
  readonly createdAt: number;
  /** Gone after this (Unix ms); extendSession moves it within the absolute lifetime. */
  readonly expiresAt: number;
}

/** A fixed-window attempt counter (sign-in throttling). */
export interface AttemptWindow {
  readonly count: number;
  /** When the window ends and the count starts again from zero (Unix ms). */
  readonly resetAt: number;
}

/** One page of an account's keys, newest first, and how many it has in all. */
export interface KeyPage {
  readonly keys: ApiKeyRecord[];
  readonly total: number;
}

/** One page of accounts, oldest first, and how many there are in all. */
export interface AccountPage {
  readonly accounts: Account[];
  readonly total: number;
}

/** A single-use secret (a sign-up verification link, an invite), kept as a digest with its payload. */
export interface OneTimeToken {
  readonly digest: string; // hex SHA-256 of the token
  readonly kind: 'verify' | 'invite';
  /** What redeeming it needs (JSON text), e.g. the pending account's email and password hash. */
  readonly payload: string;
  readonly expiresAt: number;
}

/** One change to accounts or keys, as the audit log keeps it. Never holds a secret. */
export interface NewAuditEntry {
  readonly at: number; // Unix ms
  /** The account id of whoever made the change, or `cli` for the operator's command line. */
  readonly actor: string;
  /** The client address of the request that made it; null from the CLI. */
  readonly address: string | null;
  /** `account.created`, `key.rotated`, … (docs/admin-api.md lists them). */
  readonly action: string;
  /** The id of what changed (`acct_…`, `key_…`), or '' when nothing in particular. */
  readonly target: string;
  /** What changed: field names and their new values (never a secret). */
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface AuditEntry extends NewAuditEntry {
  /** Opaque, ordered: a later entry's id sorts after an earlier one's in the store that made it. */
  readonly id: string;
}

/** Which audit entries to read; every filter is optional. */
export interface AuditQuery {
  readonly actor?: string;
  readonly target?: string;
  readonly action?: string;
  /** From this time (Unix ms), inclusive. */
  readonly from?: number;
  /** Up to this time (Unix ms), exclusive. */
  readonly to?: number;
  /** Only entries older than the entry with this id (the last of the page before). */
  readonly before?: string;
  readonly limit: number;
}

/** A Responses API response kept for `previous_response_id` and `GET /v1/responses/{id}`, owned by one account. */
export interface StoredResponse {
  readonly id: string; // resp_… (made by the caller)
  readonly accountId: string;
  readonly keyId: string;
  readonly createdAt: number; // Unix ms
  /** Gone after this (Unix ms). */
  readonly expiresAt: number;
  readonly previousResponseId: string | null;
  /** Opaque JSON text chosen by the caller (the response object, its input items, …). */
  readonly body: string;
}

/** What a stored response counts against its account's cap: its body's UTF-8 length. */
export function responseBytes(record: StoredResponse): number {
  return Buffer.byteLength(record.body, 'utf8');
}

/** createKey refused: the account already has `max` keys that are not revoked. */
export class KeyCapError extends Error {
  readonly max: number;

  constructor(max: number) {
    super(`the account already has ${max} keys`);
    this.name = 'KeyCapError';
    this.max = max;
  }
}

/** saveResponse refused: the account's live stored responses plus this one would pass `max` bytes. */
export class ResponseStorageFullError extends Error {
  readonly max: number;

  constructor(max: number) {
    super(`the account's stored responses would pass ${max} bytes`);
    this.name = 'ResponseStorageFullError';
    this.max = max;
  }
}

export interface Store {
  /** The server secret used to digest keys; created on first use and kept in the store. */
  keySecret(): Promise<Buffer>;

  countAccounts(): Promise<number>;
  /**
   * Emails are trimmed and lower-cased (see email.ts). When the email already exists the existing
   * account is returned unchanged (options ignored); an implausible email is a RangeError.
   */
  createAccount(email: string, options?: { isAdmin?: boolean }): Promise<Account>;
  findAccountByEmail(email: string): Promise<Account | undefined>;
  findAccountById(id: string): Promise<Account | undefined>;
  setAccountStatus(email: string, status: AccountStatus): Promise<Account | undefined>;
  setAccountAdmin(email: string, isAdmin: boolean): Promise<Account | undefined>;
  /** Changes the account's budget or priority; undefined when no such account exists. */
  updateAccount(id: string, change: AccountChange): Promise<Account | undefined>;

  /**
   * Creates the key; with `maxActiveKeys`, atomically refuses (KeyCapError) when the account already
   * has that many keys that are not revoked.
   */
  createKey(key: NewKey, maxActiveKeys?: number): Promise<ApiKeyRecord>;
  findKeyByDigest(digest: string): Promise<KeyWithAccount | undefined>;
  findKeyById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key (or one account's), oldest first: for the operator's CLI. */
  listKeys(accountId?: string): Promise<ApiKeyRecord[]>;
  /** One account's keys, newest first: `limit` of them after skipping `offset`. */
  listKeyPage(accountId: string, offset: number, limit: number): Promise<KeyPage>;
  /** Marks the key revoked; returns undefined when no such key exists. Revoking twice keeps the first time. */
  revokeKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  markKeysUsed(keyIds: readonly string[], at: number): Promise<void>;
  /** Changes a key that is not revoked; undefined when no such key exists, the key unchanged when it is revoked. */
  updateKey(keyId: string, change: KeyChange): Promise<ApiKeyRecord | undefined>;
  /**
   * Gives a key that is not revoked a new secret (same id, limits, usage). The old secret keeps
   * finding the key until `graceUntil` (Unix ms; none when it has passed), and then never again; a
   * secret older still stops at once. Undefined when no such key exists or it is revoked.
   */
  rotateKey(keyId: string, next: KeySecretChange, graceUntil: number): Promise<ApiKeyRecord | undefined>;

  addUsage(deltas: readonly UsageDelta[]): Promise<void>;
  /**
   * Rows per key, day and model from `fromDay` to `toDay` (inclusive), ordered by day, key and
   * model: the keys given, or every key's when `keyIds` is null; of one model when `model` is given.
   */
  usageByDay(keyIds: readonly string[] | null, fromDay: string, toDay: string, model?: string): Promise<UsageRow[]>;

  // Dashboard credentials. A password hash is an opaque string (see dashboard/password-hasher.ts).
  /**
   * Creates an account with a password; undefined when an account has the same mailbox (email.ts
   * mailboxOf: `a+x@example.com` takes `a@example.com` and `a+y@example.com`), which is untouched.
   */
  createAccountWithPassword(email: string, passwordHash: string): Promise<Account | undefined>;
  /** The account's password hash; undefined when it has none (made by the CLI) or does not exist. */
  findPasswordHash(accountId: string): Promise<string | undefined>;
  /** Returns false when no such account exists. */
  setPasswordHash(accountId: string, passwordHash: string): Promise<boolean>;
  /** Every account, oldest first. */
  listAccounts(): Promise<Account[]>;
  /** `limit` accounts, oldest first, after skipping `offset` (for admins). */
  listAccountPage(offset: number, limit: number): Promise<AccountPage>;
  /** The account's keys that are not revoked. */
  countActiveKeys(accountId: string): Promise<number>;

  createSession(session: Session): Promise<void>;
  /** Undefined when unknown or expired. */
  findSession(digest: string): Promise<Session | undefined>;
  /** Moves the expiry (idle timeout); does nothing for a session that is gone. */
  extendSession(digest: string, expiresAt: number): Promise<void>;
  deleteSession(digest: string): Promise<void>;
  /** Ends every session of the account but `keepDigest` (the one asking, when given); returns how many ended. */
  deleteAccountSessions(accountId: string, keepDigest?: string): Promise<number>;

  /** Counts one attempt under `name`; a new window of `windowMs` starts with the first attempt after the last one ended. */
  countAttempt(name: string, windowMs: number): Promise<AttemptWindow>;
  /** The current window, or undefined when none is open. */
  findAttempts(name: string): Promise<AttemptWindow | undefined>;
  clearAttempts(name: string): Promise<void>;

  saveToken(token: OneTimeToken): Promise<void>;
  /** The token, left in place; undefined when unknown or expired. */
  findToken(digest: string, kind: OneTimeToken['kind']): Promise<OneTimeToken | undefined>;
  /** Deletes the token and returns its payload, at most once; undefined when unknown or expired. */
  takeToken(digest: string, kind: OneTimeToken['kind']): Promise<string | undefined>;

  // Stored Responses. Each is found, deleted and counted only under its own account: an id is not a
  // secret, so another account's id looks exactly like one that does not exist.
  /**
   * Stores the record, replacing the account's record of the same id (whose bytes then count once).
   * Atomically refuses (ResponseStorageFullError), storing nothing, when the account's live stored
   * bytes plus this record's would pass `maxBytesPerAccount`. A record already expired is not kept.
   */
  saveResponse(record: StoredResponse, maxBytesPerAccount: number): Promise<void>;
  /** Undefined when unknown, expired, or another account's. */
  findResponse(accountId: string, id: string): Promise<StoredResponse | undefined>;
  /** True when the account had it (unexpired); its bytes are freed. */
  deleteResponse(accountId: string, id: string): Promise<boolean>;
  /** The UTF-8 bytes of the account's unexpired stored responses' bodies. */
  storedResponseBytes(accountId: string): Promise<number>;

  // The audit log: appended to, read newest first, never changed.
  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  /** Up to `query.limit` entries, newest first. */
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;

  close(): Promise<void>;
}
