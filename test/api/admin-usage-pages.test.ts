// Issue 33: the admin usage endpoint read every account and key in one answer, unbounded under open
// sign-up. It now answers one page of accounts at a time (the Accounts list's pages), with their usage.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

const PASSWORD = 'correct horse battery';
const ACCOUNTS = 61; // the admin and 60 others: two pages at the default size
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
  const { store } = gateway.app;
  const admin = await store.createAccount('boss@example.com', { isAdmin: true });
  await store.setPasswordHash(admin.id, await new PasswordHasher(1).hash(PASSWORD));
  const today = new Date().toISOString().slice(0, 10);
  for (let i = 1; i < ACCOUNTS; i++) {
    const account = await store.createAccount(`user${i}@example.com`);
    const key = await store.createKey({
      accountId: account.id, digest: randomBytes(32).toString('hex'), name: 'k', prefix: 'sk_munja_abcd', lastFour: 'wxyz',
      models: null, limits: { rpm: null, tpm: null },
    });
    await store.addUsage([{ keyId: key.id, day: today, model: 'model-a', requests: i, promptTokens: 10 * i, completionTokens: 0, costMicros: 0 }]);
  }
});

afterAll(async () => {
  await gateway.close();
});

describe('admin usage, a page of accounts at a time', () => {
  it('answers the first page with its accounts’ usage, and the rest on the next page', async () => {
    const admin = new DashboardClient(gateway.origin);
    expect((await admin.signIn('boss@example.com', PASSWORD)).status).toBe(200);

    const first = await admin.call('GET', '/dashboard/api/admin/usage');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: ACCOUNTS, offset: 0, pageSize: 50 });
    expect(first.body.accounts).toHaveLength(50);
    const onFirst = new Set(first.body.accounts.map((account: { id: string }) => account.id));
    expect(first.body.rows.every((row: { accountId: string }) => onFirst.has(row.accountId))).toBe(true);
    expect(first.body.rows).toHaveLength(49);

    const second = await admin.call('GET', '/dashboard/api/admin/usage/page/50');
    expect(second.body).toMatchObject({ total: ACCOUNTS, offset: 50, pageSize: 50 });
    expect(second.body.accounts.map((account: { email: string }) => account.email)).toEqual(
      Array.from({ length: 11 }, (_, i) => `user${50 + i}@example.com`));
    expect(second.body.rows.map((row: { requests: number }) => row.requests).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => 50 + i));

    expect((await admin.call('GET', '/dashboard/api/admin/usage/page/x')).status).toBe(404);
  });
});
