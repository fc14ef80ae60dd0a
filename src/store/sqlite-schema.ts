// Schema migrations keyed by `PRAGMA user_version`. Append new steps; never edit a shipped one.
import type { DatabaseSync } from 'node:sqlite';

const MIGRATIONS: readonly string[] = [
  // 1: meta, accounts, keys, usage_daily
  `CREATE TABLE meta (
     name  TEXT PRIMARY KEY,
     value BLOB NOT NULL
   ) STRICT;
   CREATE TABLE accounts (
     id         TEXT PRIMARY KEY,
     email      TEXT NOT NULL COLLATE NOCASE UNIQUE,
     status     TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
     is_admin   INTEGER NOT NULL CHECK (is_admin IN (0, 1)),
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE keys (
     id           TEXT PRIMARY KEY,
     account_id   TEXT NOT NULL REFERENCES accounts (id),
     digest       TEXT NOT NULL UNIQUE,
     name         TEXT NOT NULL,
     prefix       TEXT NOT NULL,
     last_four    TEXT NOT NULL,
     models       TEXT,
     rpm          INTEGER,
     tpm          INTEGER,
     created_at   INTEGER NOT NULL,
     last_used_at INTEGER,
     revoked_at   INTEGER
   ) STRICT;
   CREATE INDEX keys_by_account ON keys (account_id, created_at);
   CREATE TABLE usage_daily (
     key_id            TEXT NOT NULL REFERENCES keys (id),
     day               TEXT NOT NULL,
     requests          INTEGER NOT NULL,
     prompt_tokens     INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     PRIMARY KEY (key_id, day)
   ) STRICT, WITHOUT ROWID;`,
  // 2: dashboard passwords, sessions (by digest) and sign-in attempt counters
  `CREATE TABLE passwords (
     account_id TEXT PRIMARY KEY REFERENCES accounts (id),
     hash       TEXT NOT NULL
   ) STRICT;
   CREATE TABLE sessions (
     digest     TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts (id),
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX sessions_by_expiry ON sessions (expires_at);
   CREATE TABLE attempts (
     name     TEXT PRIMARY KEY,
     count    INTEGER NOT NULL,
     reset_at INTEGER NOT NULL
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX attempts_by_reset ON attempts (reset_at);`,
  // 3: single-use tokens (sign-up verification, invites)
  `CREATE TABLE tokens (
     digest     TEXT NOT NULL,
     kind       TEXT NOT NULL,
     payload    TEXT NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (kind, digest)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX tokens_by_expiry ON tokens (expires_at);`,
  // 4: an account's sessions, to end them all (password change, sign out everywhere)
  'CREATE INDEX sessions_by_account ON sessions (account_id);',
  // 5: each account's mailbox (email.ts mailboxOf, here in SQL for the accounts made before), for
  // one account per mailbox at sign-up. Not UNIQUE: accounts made before may share one.
  `ALTER TABLE accounts ADD COLUMN mailbox TEXT NOT NULL DEFAULT '';
   UPDATE accounts SET mailbox = CASE WHEN instr(email, '+') BETWEEN 2 AND instr(email, '@') - 1
     THEN substr(email, 1, instr(email, '+') - 1) || substr(email, instr(email, '@')) ELSE email END;
   CREATE INDEX accounts_by_mailbox ON accounts (mailbox);`,
  // 6: stored Responses, and each account's total of their bytes, kept by triggers so that the cap
  // is checked without summing the account's rows (a sum over 50,000 rows of one account took
  // ~9 ms of the event loop per save; the total keeps a save at ~0.2 ms whatever the count).
  // responses_by_account covers the sum of the account's expired rows not yet purged;
  // responses_by_expiry serves the purge.
  `CREATE TABLE responses (
     account_id           TEXT NOT NULL REFERENCES accounts (id),
     id                   TEXT NOT NULL,
     key_id               TEXT NOT NULL REFERENCES keys (id),
     created_at           INTEGER NOT NULL,
     expires_at           INTEGER NOT NULL,
     previous_response_id TEXT,
     bytes                INTEGER NOT NULL,
     body                 TEXT NOT NULL,
     PRIMARY KEY (account_id, id)
   ) STRICT;
   CREATE INDEX responses_by_account ON responses (account_id, expires_at, bytes);
   CREATE INDEX responses_by_expiry ON responses (expires_at);
   CREATE TABLE response_bytes (
     account_id TEXT PRIMARY KEY REFERENCES accounts (id),
     bytes      INTEGER NOT NULL
   ) STRICT, WITHOUT ROWID;
   CREATE TRIGGER responses_added AFTER INSERT ON responses BEGIN
     INSERT INTO response_bytes (account_id, bytes) VALUES (new.account_id, new.bytes)
       ON CONFLICT (account_id) DO UPDATE SET bytes = bytes + excluded.bytes;
   END;
   CREATE TRIGGER responses_replaced AFTER UPDATE OF bytes ON responses BEGIN
     UPDATE response_bytes SET bytes = bytes - old.bytes + new.bytes WHERE account_id = new.account_id;
   END;
   CREATE TRIGGER responses_removed AFTER DELETE ON responses BEGIN
     UPDATE response_bytes SET bytes = bytes - old.bytes WHERE account_id = old.account_id;
   END;`,
  // 7: the admin scope of a key, the audit log (append-only: nothing updates or deletes a row), and
  // the old secret of a rotated key during its grace (one per key)
  `ALTER TABLE keys ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1));
   CREATE TABLE audit (
     id      INTEGER PRIMARY KEY AUTOINCREMENT,
     at      INTEGER NOT NULL,
     actor   TEXT NOT NULL,
     address TEXT,
     action  TEXT NOT NULL,
     target  TEXT NOT NULL,
     fields  TEXT NOT NULL
   ) STRICT;
   CREATE INDEX audit_by_target ON audit (target, id);
   CREATE INDEX audit_by_actor ON audit (actor, id);
   CREATE TABLE key_grace (
     digest     TEXT PRIMARY KEY,
     key_id     TEXT NOT NULL UNIQUE REFERENCES keys (id),
     expires_at INTEGER NOT NULL
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX key_grace_by_expiry ON key_grace (expires_at);`,
  // 8: usage per key, day and model, with its cost (micro-units of the budgets' currency). The rows
  // counted before keep model '' (unknown) and cost 0. usage_by_day serves the reads over every key.
  `CREATE TABLE usage_by_model (
     key_id            TEXT NOT NULL REFERENCES keys (id),
     day               TEXT NOT NULL,
     model             TEXT NOT NULL,
     requests          INTEGER NOT NULL,
     prompt_tokens     INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     cost_micros       INTEGER NOT NULL,
     PRIMARY KEY (key_id, day, model)
   ) STRICT, WITHOUT ROWID;
   INSERT INTO usage_by_model (key_id, day, model, requests, prompt_tokens, completion_tokens, cost_micros)
     SELECT key_id, day, '', requests, prompt_tokens, completion_tokens, 0 FROM usage_daily;
   DROP TABLE usage_daily;
   ALTER TABLE usage_by_model RENAME TO usage_daily;
   CREATE INDEX usage_by_day ON usage_daily (day, key_id, model);`,
  // 9: a key's expiry, budget, priority and cache setting; an account's budget, priority and rate limits (null: none)
  `ALTER TABLE keys ADD COLUMN expires_at INTEGER;
   ALTER TABLE keys ADD COLUMN budget_limit INTEGER CHECK (budget_limit >= 0);
   ALTER TABLE keys ADD COLUMN budget_period TEXT CHECK (budget_period IN ('day', 'month', 'total'));
   ALTER TABLE keys ADD COLUMN priority TEXT CHECK (priority IN ('high', 'normal', 'low'));
   ALTER TABLE keys ADD COLUMN cache TEXT CHECK (cache IN ('on', 'off'));
   ALTER TABLE accounts ADD COLUMN budget_limit INTEGER CHECK (budget_limit >= 0);
   ALTER TABLE accounts ADD COLUMN budget_period TEXT CHECK (budget_period IN ('day', 'month', 'total'));
   ALTER TABLE accounts ADD COLUMN priority TEXT CHECK (priority IN ('high', 'normal', 'low'));
   ALTER TABLE accounts ADD COLUMN rpm INTEGER CHECK (rpm >= 0);
   ALTER TABLE accounts ADD COLUMN tpm INTEGER CHECK (tpm >= 0);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function userVersion(db: DatabaseSync): number {
  return Number(db.prepare('PRAGMA user_version').get()?.['user_version'] ?? 0);
}

/** Brings the file up to SCHEMA_VERSION. Safe when several processes open a new file at once. */
export function migrate(db: DatabaseSync): void {
  if (userVersion(db) === SCHEMA_VERSION) return;
  db.exec('BEGIN IMMEDIATE');
  try {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const current = userVersion(db);
    if (current > SCHEMA_VERSION) {
      throw new Error(`the database has schema version ${current}; this munja supports up to ${SCHEMA_VERSION}`);
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]!);
    }
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
