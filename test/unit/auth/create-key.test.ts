import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestApiKey, hasValidFormat } from '../../../src/auth/api-key.ts';
import { UnknownAccountError, createApiKey } from '../../../src/auth/create-key.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';

describe('createApiKey', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'munja-create-key-'));
    store = SqliteStore.open(dir);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the account when asked and returns a valid key whose digest finds the record', async () => {
    const created = await createApiKey(store, {
      accountEmail: 'Dev@Example.com', name: 'ci', models: ['m1'], rpm: 5, tpm: 500, createAccount: true,
    });
    expect(hasValidFormat(created.key)).toBe(true);
    expect(created.account.email).toBe('dev@example.com');
    expect(created.record).toMatchObject({
      accountId: created.account.id, name: 'ci', models: ['m1'], limits: { rpm: 5, tpm: 500 },
      prefix: created.key.slice(0, 13), lastFour: created.key.slice(-4), revokedAt: null,
    });
    const found = await store.findKeyByDigest(digestApiKey(created.key, await store.keySecret()));
    expect(found?.key.id).toBe(created.record.id);
  });

  it('defaults to no name, all models and the operator limits', async () => {
    const { record } = await createApiKey(store, { accountEmail: 'a@example.com', createAccount: true });
    expect(record).toMatchObject({ name: '', models: null, limits: { rpm: null, tpm: null } });
  });

  it('reuses an existing account', async () => {
    const account = await store.createAccount('a@example.com');
    const { record } = await createApiKey(store, { accountEmail: 'A@example.com' });
    expect(record.accountId).toBe(account.id);
    expect(await store.countAccounts()).toBe(1);
  });

  it('refuses an unknown account unless told to create it', async () => {
    await expect(createApiKey(store, { accountEmail: 'nobody@example.com' })).rejects.toBeInstanceOf(UnknownAccountError);
    expect(await store.countAccounts()).toBe(0);
  });

  it('makes the account an admin only when it creates it', async () => {
    const first = await createApiKey(store, { accountEmail: 'root@example.com', createAccount: true, isAdmin: true });
    expect(first.account.isAdmin).toBe(true);
    await store.createAccount('user@example.com');
    const second = await createApiKey(store, { accountEmail: 'user@example.com', createAccount: true, isAdmin: true });
    expect(second.account.isAdmin).toBe(false);
  });
});
