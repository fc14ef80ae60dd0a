// The prepared statements of the SQLite store, made once per connection.
import type { DatabaseSync, StatementSync } from 'node:sqlite';

const ACCOUNT_COLUMNS = `a.id AS a_id, a.email AS a_email, a.status AS a_status, a.is_admin AS a_is_admin, a.created_at AS a_created_at,
  a.budget_limit AS a_budget_limit, a.budget_period AS a_budget_period, a.priority AS a_priority, a.rpm AS a_rpm, a.tpm AS a_tpm`;

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: DatabaseSync) {
  const sql = (text: string): StatementSync => db.prepare(text);
  return {
    insertSecret: sql('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
    selectSecret: sql('SELECT value FROM meta WHERE name = ?'),
    countAccounts: sql('SELECT count(*) AS n FROM accounts'),
    insertAccount: sql(`INSERT INTO accounts (id, email, mailbox, status, is_admin, created_at) VALUES (?, ?, ?, 'active', ?, ?)
                        ON CONFLICT (email) DO NOTHING`),
    accountByEmail: sql('SELECT * FROM accounts WHERE email = ?'),
    accountById: sql('SELECT * FROM accounts WHERE id = ?'),
    setStatus: sql('UPDATE accounts SET status = ? WHERE email = ? RETURNING *'),
    setAdmin: sql('UPDATE accounts SET is_admin = ? WHERE email = ? RETURNING *'),
    updateAccount: sql('UPDATE accounts SET budget_limit = ?, budget_period = ?, priority = ?, rpm = ?, tpm = ? WHERE id = ? RETURNING *'),
    insertKey: sql(`INSERT INTO keys (id, account_id, digest, name, prefix, last_four, models, rpm, tpm, created_at, is_admin,
                                      expires_at, budget_limit, budget_period, priority, cache)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`),
    keyByDigest: sql(`SELECT k.*, ${ACCOUNT_COLUMNS} FROM keys k JOIN accounts a ON a.id = k.account_id WHERE k.digest = ?`),
    keyByGraceDigest: sql(`SELECT k.*, ${ACCOUNT_COLUMNS}, g.expires_at AS grace_until FROM key_grace g
                           JOIN keys k ON k.id = g.key_id JOIN accounts a ON a.id = k.account_id WHERE g.digest = ? AND g.expires_at > ?`),
    updateKey: sql(`UPDATE keys SET name = ?, models = ?, rpm = ?, tpm = ?, expires_at = ?, budget_limit = ?, budget_period = ?, priority = ?, cache = ?
                    WHERE id = ? AND revoked_at IS NULL RETURNING *`),
    rotateKey: sql('UPDATE keys SET digest = ?, prefix = ?, last_four = ? WHERE id = ? AND revoked_at IS NULL RETURNING *'),
    deleteKeyGrace: sql('DELETE FROM key_grace WHERE key_id = ?'),
    insertKeyGrace: sql('INSERT INTO key_grace (digest, key_id, expires_at) VALUES (?, ?, ?)'),
    deleteExpiredKeyGrace: sql('DELETE FROM key_grace WHERE expires_at <= ?'),
    allKeys: sql('SELECT * FROM keys ORDER BY created_at, rowid'),
    keysOfAccount: sql('SELECT * FROM keys WHERE account_id = ? ORDER BY created_at, rowid'),
    keyById: sql('SELECT * FROM keys WHERE id = ?'),
    keyPage: sql('SELECT * FROM keys WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?'),
    countKeys: sql('SELECT count(*) AS n FROM keys WHERE account_id = ?'),
    countActiveKeys: sql('SELECT count(*) AS n FROM keys WHERE account_id = ? AND revoked_at IS NULL'),
    insertToken: sql('INSERT INTO tokens (digest, kind, payload, expires_at) VALUES (?, ?, ?, ?)'),
    takeToken: sql('DELETE FROM tokens WHERE digest = ? AND kind = ? RETURNING payload, expires_at'),
    tokenByDigest: sql('SELECT payload, expires_at FROM tokens WHERE digest = ? AND kind = ? AND expires_at > ?'),
    deleteExpiredTokens: sql('DELETE FROM tokens WHERE expires_at <= ?'),
    revokeKey: sql('UPDATE keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING *'),
    markUsed: sql('UPDATE keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?'),
    addUsage: sql(`INSERT INTO usage_daily (key_id, day, model, requests, prompt_tokens, completion_tokens, cost_micros)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (key_id, day, model) DO UPDATE SET
                     requests = requests + excluded.requests,
                     prompt_tokens = prompt_tokens + excluded.prompt_tokens,
                     completion_tokens = completion_tokens + excluded.completion_tokens,
                     cost_micros = cost_micros + excluded.cost_micros`),
    // ?3 null: any model.
    usageOfKeys: sql(`SELECT * FROM usage_daily WHERE key_id IN (SELECT value FROM json_each(?1)) AND day BETWEEN ?2 AND ?4
                        AND (?3 IS NULL OR model = ?3)
                      ORDER BY day, key_id, model`),
    usageOfAll: sql(`SELECT * FROM usage_daily WHERE day BETWEEN ?1 AND ?3 AND (?2 IS NULL OR model = ?2)
                     ORDER BY day, key_id, model`),
    allAccounts: sql('SELECT * FROM accounts ORDER BY created_at, rowid'),
    accountPage: sql('SELECT * FROM accounts ORDER BY created_at, rowid LIMIT ? OFFSET ?'),
    insertAccountOnce: sql(`INSERT INTO accounts (id, email, mailbox, status, is_admin, created_at) VALUES (?, ?, ?, 'active', 0, ?)
                            ON CONFLICT (email) DO NOTHING RETURNING *`),
    mailboxTaken: sql('SELECT 1 AS taken FROM accounts WHERE mailbox = ? LIMIT 1'),
    upsertPassword: sql('INSERT INTO passwords (account_id, hash) VALUES (?, ?) ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash'),
    passwordOf: sql('SELECT hash FROM passwords WHERE account_id = ?'),
    insertSession: sql('INSERT INTO sessions (digest, account_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    sessionByDigest: sql('SELECT * FROM sessions WHERE digest = ? AND expires_at > ?'),
    extendSession: sql('UPDATE sessions SET expires_at = ? WHERE digest = ?'),
    deleteSession: sql('DELETE FROM sessions WHERE digest = ?'),
    deleteAccountSessions: sql('DELETE FROM sessions WHERE account_id = ? AND digest != ?'),
    deleteExpiredSessions: sql('DELETE FROM sessions WHERE expires_at <= ?'),
    countAttempt: sql(`INSERT INTO attempts (name, count, reset_at) VALUES (:name, 1, :resetAt)
                       ON CONFLICT (name) DO UPDATE SET
                         count = CASE WHEN reset_at <= :now THEN 1 ELSE count + 1 END,
                         reset_at = CASE WHEN reset_at <= :now THEN excluded.reset_at ELSE reset_at END
                       RETURNING count, reset_at`),
    attemptsByName: sql('SELECT count, reset_at FROM attempts WHERE name = ? AND reset_at > ?'),
    deleteAttempts: sql('DELETE FROM attempts WHERE name = ?'),
    deleteExpiredAttempts: sql('DELETE FROM attempts WHERE reset_at <= ?'),
    // The account's total minus what of it has expired but is not yet purged.
    liveResponseBytes: sql(`SELECT coalesce((SELECT bytes FROM response_bytes WHERE account_id = :accountId), 0)
                              - coalesce((SELECT sum(bytes) FROM responses WHERE account_id = :accountId AND expires_at <= :now), 0) AS n`),
    liveResponseSize: sql('SELECT bytes FROM responses WHERE account_id = ? AND id = ? AND expires_at > ?'),
    upsertResponse: sql(`INSERT INTO responses (account_id, id, key_id, created_at, expires_at, previous_response_id, bytes, body)
                         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                         ON CONFLICT (account_id, id) DO UPDATE SET
                           key_id = excluded.key_id, created_at = excluded.created_at, expires_at = excluded.expires_at,
                           previous_response_id = excluded.previous_response_id, bytes = excluded.bytes, body = excluded.body`),
    responseById: sql('SELECT * FROM responses WHERE account_id = ? AND id = ? AND expires_at > ?'),
    deleteResponse: sql('DELETE FROM responses WHERE account_id = ? AND id = ? RETURNING expires_at'),
    deleteExpiredResponses: sql('DELETE FROM responses WHERE expires_at <= ?'),
    insertAudit: sql('INSERT INTO audit (at, actor, address, action, target, fields) VALUES (?, ?, ?, ?, ?, ?) RETURNING *'),
    auditPage: sql(`SELECT * FROM audit
                    WHERE (:before IS NULL OR id < :before) AND (:actor IS NULL OR actor = :actor)
                      AND (:target IS NULL OR target = :target) AND (:action IS NULL OR action = :action)
                      AND (:from IS NULL OR at >= :from) AND (:to IS NULL OR at < :to)
                    ORDER BY id DESC LIMIT :limit`),
  };
}
