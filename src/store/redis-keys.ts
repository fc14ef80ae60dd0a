// Where the Redis store keeps what. Accounts and keys share one hash tag ({store}) so that the
// scripts that read or change several of them run in one Cluster slot, atomically; the store is
// small and its reads are absorbed by the auth cache. Usage is tagged per key ({key_…}) and stored
// responses per account ({acct_…}) so that they spread across the cluster, while the scripts that
// keep an account's responses and their byte count together still run in one slot.
//
//   munja:{store}:meta                 hash   keySecret (hex), mailboxesIndexed
//   munja:{store}:accounts             set    every account id (SCARD counts them)
//   munja:{store}:accounts-by-time     zset   every account id, scored by creation time (pages of accounts)
//   munja:{store}:account:<id>         hash   id email status isAdmin createdAt [budgetLimit budgetPeriod priority]
//   munja:{store}:account-email:<email> string account id
//   munja:{store}:account-mailbox:<mailbox> string id of the first account with that mailbox (email.ts);
//                                             built over older accounts once (meta mailboxesIndexed)
//   munja:{store}:key:<digest>         hash   id accountId name prefix lastFour [models rpm tpm] createdAt [lastUsedAt revokedAt]
//                                             [admin expiresAt budgetLimit budgetPeriod priority cache]
//   munja:{store}:key-id:<id>          string digest
//   munja:{store}:key-grace:<digest>   string `<new digest>:<grace end>`: a rotated key's old secret (expires at the grace end)
//   munja:{store}:keys                 zset   every key id, scored by creation sequence
//   munja:{store}:account-keys:<id>    zset   one account's key ids, same scores
//   munja:{store}:key-sequence         string counter behind those scores
//   munja:{store}:active-keys:<id>     set    one account's keys that are not revoked (the key cap);
//                                             built on first use when the account hash lacks activeKeysIndexed
//   munja:{store}:password:<accountId> string dashboard password hash
//   munja:session:<digest>             hash   accountId createdAt expiresAt (expires at expiresAt)
//   munja:account-sessions:<accountId> set    digests of the account's sessions (expires with the last one;
//                                             may name sessions that are gone)
//   munja:attempts:<name>              string sign-in attempt count (expires with its window)
//   munja:token:<kind>:<digest>        string a single-use token's payload (expires with it)
//   munja:usage:{<keyId>}:<YYYY-MM-DD> hash   per model: requests:<model> promptTokens:<model> completionTokens:<model>
//                                             costMicros:<model>; bare names: model '' (redis-usage.ts) (expires)
//   munja:usage:{<keyId>}:days         zset   the days with usage, lexicographic (expires)
//   munja:responses:{<accountId>}:record:<id> hash id accountId keyId createdAt expiresAt [previousResponseId]
//                                             body (expires at expiresAt)
//   munja:responses:{<accountId>}:expiry  zset   the account's response ids, scored by expiresAt  } each expires with
//   munja:responses:{<accountId>}:sizes   hash   response id → body bytes                         } the account's
//   munja:responses:{<accountId>}:bytes   string the sum of those sizes (the cap counts it)       } last response
//   munja:audit                        stream the audit log, about the newest 100,000 entries (redis-audit.ts)
//   munja:key-events                   pub/sub channel (key-events.ts)

/** Every Munja key starts with this. Not configurable, so the server and the CLI cannot disagree. */
export const REDIS_PREFIX = 'munja:';

const STORE = `${REDIS_PREFIX}{store}:`;

// Scripts build some key names themselves (from these prefixes and what they read), always within
// the {store} slot of the keys they were given.
export const ACCOUNT_PREFIX = `${STORE}account:`;
export const KEY_RECORD_PREFIX = `${STORE}key:`;
export const KEY_ID_PREFIX = `${STORE}key-id:`;
export const KEY_GRACE_PREFIX = `${STORE}key-grace:`;
export const ACTIVE_KEYS_PREFIX = `${STORE}active-keys:`;
export const MAILBOX_PREFIX = `${STORE}account-mailbox:`;

export const storeKeys = {
  meta: `${STORE}meta`,
  accounts: `${STORE}accounts`,
  accountsByTime: `${STORE}accounts-by-time`,
  account: (id: string) => ACCOUNT_PREFIX + id,
  accountEmail: (email: string) => `${STORE}account-email:${email}`,
  accountMailbox: (mailbox: string) => MAILBOX_PREFIX + mailbox,
  key: (digest: string) => KEY_RECORD_PREFIX + digest,
  keyId: (id: string) => KEY_ID_PREFIX + id,
  keyGrace: (digest: string) => KEY_GRACE_PREFIX + digest,
  keys: `${STORE}keys`,
  accountKeys: (accountId: string) => `${STORE}account-keys:${accountId}`,
  keySequence: `${STORE}key-sequence`,
  activeKeys: (accountId: string) => ACTIVE_KEYS_PREFIX + accountId,
  password: (accountId: string) => `${STORE}password:${accountId}`,
  session: (digest: string) => `${REDIS_PREFIX}session:${digest}`,
  accountSessions: (accountId: string) => `${REDIS_PREFIX}account-sessions:${accountId}`,
  attempts: (name: string) => `${REDIS_PREFIX}attempts:${name}`,
  token: (kind: string, digest: string) => `${REDIS_PREFIX}token:${kind}:${digest}`,
} as const;

/** `munja:usage:{key_…}:` — a day (`YYYY-MM-DD`) or `days` follows. */
export function usagePrefix(keyId: string): string {
  return `${REDIS_PREFIX}usage:{${keyId}}:`;
}

/** `munja:responses:{acct_…}:` — `expiry`, `sizes`, `bytes` or `record:<id>` follows. */
export function responsesPrefix(accountId: string): string {
  return `${REDIS_PREFIX}responses:{${accountId}}:`;
}

export const KEY_EVENTS_CHANNEL = `${REDIS_PREFIX}key-events`;
