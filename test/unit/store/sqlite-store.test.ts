import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DATABASE_FILE, SqliteStore } from '../../../src/store/sqlite-store.ts';
import { SCHEMA_VERSION } from '../../../src/store/sqlite-schema.ts';
import type { NewKey } from '../../../src/store/store.ts';

function newKey(accountId: string): NewKey {
  return {
    accountId, digest: randomBytes(32).toString('hex'), name: 'k', prefix: 'sk_munja_abcd', lastFour: 'wxyz',
    models: ['m'], limits: { rpm: 1, tpm: 2 },
  };
}

// Take a database back to schema version 8 (before keys and accounts carried budgets and the rest),
// and from 8 to 7 (usage per key and day only; its rows are dropped).
const UNDO_9 = `ALTER TABLE keys DROP COLUMN expires_at; ALTER TABLE keys DROP COLUMN budget_limit; ALTER TABLE keys DROP COLUMN budget_period; ALTER TABLE keys DROP COLUMN priority; ALTER TABLE keys DROP COLUMN cache; ALTER TABLE accounts DROP COLUMN budget_limit; ALTER TABLE accounts DROP COLUMN budget_period; ALTER TABLE accounts DROP COLUMN priority; ALTER TABLE accounts DROP COLUMN rpm; ALTER TABLE accounts DROP COLUMN tpm;`;
const UNDO_8 = `DROP TABLE usage_daily;
  CREATE TABLE usage_daily (
    key_id TEXT NOT NULL REFERENCES keys (id), day TEXT NOT NULL, requests INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, PRIMARY KEY (key_id, day)
  ) STRICT, WITHOUT ROWID;`;

describe('SqliteStore', () => {
  let root: string;
  let dataDir: string;
  const open: SqliteStore[] = [];

  function openStore(): SqliteStore {
    const store = SqliteStore.open(dataDir);
    open.push(store);
    return store;
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'munja-sqlite-'));
    dataDir = join(root, 'nested', 'data');
  });

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the data directory 0700 and a 0600 munja.db', () => {
    openStore();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, DATABASE_FILE)).mode & 0o777).toBe(0o600);
  });

  it('uses WAL and records the schema version', async () => {
    await openStore().close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    expect(db.prepare('PRAGMA journal_mode').get()?.['journal_mode']).toBe('wal');
    expect(db.prepare('PRAGMA user_version').get()?.['user_version']).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(9);
    db.close();
  });

  it('enforces foreign keys', async () => {
    const store = openStore();
    await expect(store.createKey(newKey('acct_missing'))).rejects.toThrow(/FOREIGN KEY/);
    await expect(store.addUsage([
      { keyId: 'key_missing', day: '2025-01-01', model: 'm', requests: 1, promptTokens: 1, completionTokens: 1, costMicros: 1 },
    ])).rejects.toThrow(/FOREIGN KEY/);
  });

  it('rolls a failed usage batch back as a whole', async () => {
    const store = openStore();
    const account = await store.createAccount('a@example.com');
    const key = await store.createKey(newKey(account.id));
    const good = { keyId: key.id, day: '2025-01-01', model: 'm', requests: 1, promptTokens: 1, completionTokens: 1, costMicros: 1 };
    await expect(store.addUsage([good, { ...good, keyId: 'key_missing' }])).rejects.toThrow();
    expect(await store.usageByDay([key.id], '2025-01-01', '2025-01-01')).toEqual([]);
  });

  it('keeps everything, including the key secret, across close and reopen', async () => {
    const first = openStore();
    const secret = await first.keySecret();
    const account = await first.createAccount('a@example.com', { isAdmin: true });
    const input = newKey(account.id);
    const key = await first.createKey(input);
    await first.revokeKey(key.id);
    await first.markKeysUsed([key.id], 1234);
    await first.addUsage([{ keyId: key.id, day: '2025-01-01', model: 'm', requests: 2, promptTokens: 3, completionTokens: 4, costMicros: 5 }]);
    await first.close();

    const second = openStore();
    expect((await second.keySecret()).equals(secret)).toBe(true);
    const found = await second.findKeyByDigest(input.digest);
    expect(found?.account).toEqual(account);
    expect(found?.key).toMatchObject({ id: key.id, models: ['m'], limits: { rpm: 1, tpm: 2 }, lastUsedAt: 1234 });
    expect(found?.key.revokedAt).toBeTypeOf('number');
    expect(await second.usageByDay([key.id], '2025-01-01', '2025-01-01')).toHaveLength(1);
  });

  it('lets two processes’ worth of connections share the file (server and CLI)', async () => {
    const server = openStore();
    const cli = openStore();
    expect((await server.keySecret()).equals(await cli.keySecret())).toBe(true);
    const account = await cli.createAccount('a@example.com');
    const input = newKey(account.id);
    await cli.createKey(input);
    expect((await server.findKeyByDigest(input.digest))?.account.id).toBe(account.id);
    await cli.setAccountStatus('a@example.com', 'suspended');
    expect((await server.findKeyByDigest(input.digest))?.account.status).toBe('suspended');
  });

  it('upgrades a version 1 database in place, keeping its accounts and keys', async () => {
    const first = openStore();
    const account = await first.createAccount('a@example.com');
    const input = newKey(account.id);
    await first.createKey(input);
    await first.close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    db.exec(`${UNDO_9} ${UNDO_8} DROP TABLE audit; DROP TABLE key_grace; ALTER TABLE keys DROP COLUMN is_admin; DROP TABLE responses; DROP TABLE response_bytes; DROP TABLE passwords; DROP TABLE sessions; DROP TABLE attempts; DROP TABLE tokens;
             DROP INDEX accounts_by_mailbox; ALTER TABLE accounts DROP COLUMN mailbox; PRAGMA user_version = 1`);
    db.close();

    const upgraded = openStore();
    expect((await upgraded.findKeyByDigest(input.digest))?.account).toEqual(account);
    expect(await upgraded.setPasswordHash(account.id, 'hash')).toBe(true);
    expect((await upgraded.countAttempt('ip:1', 1_000)).count).toBe(1);
    expect(await upgraded.storedResponseBytes(account.id)).toBe(0);
    expect((await upgraded.findKeyByDigest(input.digest))?.key.admin).toBe(false);
    expect((await upgraded.appendAudit({ at: 1, actor: 'cli', address: null, action: 'account.created', target: account.id, fields: {} })).id).toBe('1');
  });

  it('upgrades a version 7 database, keeping its accounts and keys, which then have no expiry, budget, priority or cache setting', async () => {
    const first = openStore();
    const account = await first.createAccount('a@example.com');
    const input = newKey(account.id);
    const key = await first.createKey(input);
    await first.close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    db.exec(`${UNDO_9} ${UNDO_8} PRAGMA user_version = 7`);
    db.close();

    const upgraded = openStore();
    const found = await upgraded.findKeyByDigest(input.digest);
    expect(found).toEqual({ key, account });
    expect(found?.key).toMatchObject({ expiresAt: null, budget: null, priority: null, cache: null });
    expect(found?.account).toMatchObject({ budget: null, priority: null });
    expect((await upgraded.updateKey(key.id, { budget: { limit: 7, period: 'day' } }))?.budget).toEqual({ limit: 7, period: 'day' });
    expect((await upgraded.updateAccount(account.id, { priority: 'high' }))?.priority).toBe('high');
  });

  it('indexes the mailboxes of accounts made before version 5, keeping accounts that share one', async () => {
    const first = openStore();
    const old = await first.createAccount('old+tag@example.com');
    const twins = [await first.createAccount('twin+a@example.com'), await first.createAccount('twin+b@example.com')];
    await first.close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    db.exec(`${UNDO_9} ${UNDO_8} DROP TABLE audit; DROP TABLE key_grace; ALTER TABLE keys DROP COLUMN is_admin; DROP TABLE responses; DROP TABLE response_bytes; DROP INDEX accounts_by_mailbox; ALTER TABLE accounts DROP COLUMN mailbox; PRAGMA user_version = 4`);
    db.close();

    const upgraded = openStore();
    expect(await upgraded.findAccountByEmail('old+tag@example.com')).toEqual(old);
    for (const twin of twins) expect(await upgraded.findAccountById(twin.id)).toEqual(twin);
    expect(await upgraded.createAccountWithPassword('old@example.com', 'hash')).toBeUndefined();
    expect(await upgraded.createAccountWithPassword('twin+c@example.com', 'hash')).toBeUndefined();
    expect(await upgraded.createAccountWithPassword('new@example.com', 'hash')).toBeDefined();
  });

  it('upgrades the usage of a version 7 database to usage per model: its rows kept under model "" at cost 0', async () => {
    const first = openStore();
    const account = await first.createAccount('a@example.com');
    const key = await first.createKey(newKey(account.id));
    await first.close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    db.exec(`${UNDO_9} ${UNDO_8} PRAGMA user_version = 7`);
    db.prepare('INSERT INTO usage_daily VALUES (?, ?, ?, ?, ?)').run(key.id, '2025-01-01', 3, 30, 300);
    db.prepare('INSERT INTO usage_daily VALUES (?, ?, ?, ?, ?)').run(key.id, '2025-01-02', 1, 10, 100);
    db.close();

    const upgraded = openStore();
    await upgraded.addUsage([{ keyId: key.id, day: '2025-01-02', model: 'm', requests: 2, promptTokens: 4, completionTokens: 6, costMicros: 70 }]);
    expect(await upgraded.usageByDay([key.id], '2025-01-01', '2025-01-02')).toEqual([
      { keyId: key.id, day: '2025-01-01', model: '', requests: 3, promptTokens: 30, completionTokens: 300, costMicros: 0 },
      { keyId: key.id, day: '2025-01-02', model: '', requests: 1, promptTokens: 10, completionTokens: 100, costMicros: 0 },
      { keyId: key.id, day: '2025-01-02', model: 'm', requests: 2, promptTokens: 4, completionTokens: 6, costMicros: 70 },
    ]);
    expect(await upgraded.usageByDay(null, '2025-01-01', '2025-01-02', '')).toHaveLength(2);
  });

  it('purges expired responses from the file at most once a minute, by the next write, keeping the byte count', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const store = openStore();
      const account = await store.createAccount('a@example.com');
      const key = await store.createKey(newKey(account.id));
      const start = Date.now();
      const record = (id: string, body: string) => ({
        id, accountId: account.id, keyId: key.id, createdAt: Date.now(), expiresAt: Date.now() + 1_000, previousResponseId: null, body,
      });
      await store.saveResponse(record('resp_old', 'x'.repeat(10)), 100);
      await store.saveResponse(record('resp_old', 'x'.repeat(30)), 100);
      const rows = () => {
        const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
        try {
          return {
            ids: db.prepare('SELECT id FROM responses ORDER BY id').all().map((row) => row['id']),
            total: db.prepare('SELECT bytes FROM response_bytes WHERE account_id = ?').get(account.id)?.['bytes'],
          };
        } finally {
          db.close();
        }
      };
      expect(rows()).toEqual({ ids: ['resp_old'], total: 30 });

      vi.setSystemTime(start + 2_000);
      await store.saveResponse(record('resp_new', 'y'.repeat(100)), 100);
      expect(await store.findResponse(account.id, 'resp_old')).toBeUndefined();
      expect(rows()).toEqual({ ids: ['resp_new', 'resp_old'], total: 130 });
      expect(await store.storedResponseBytes(account.id)).toBe(100);

      vi.setSystemTime(start + 61_000);
      await store.saveResponse(record('resp_next', 'z'.repeat(100)), 100);
      expect(rows()).toEqual({ ids: ['resp_next'], total: 100 });
      expect(await store.deleteResponse(account.id, 'resp_next')).toBe(true);
      expect(rows()).toEqual({ ids: [], total: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a database from a newer munja', async () => {
    await openStore().close();
    const db = new DatabaseSync(join(dataDir, DATABASE_FILE));
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => SqliteStore.open(dataDir)).toThrow(/schema version/);
  });

  it('closes idempotently', async () => {
    const store = openStore();
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });
});
