// Issue 20, findings 2 and 7, on the default settings: one account could make 5,021 keys (500 in
// 1.7 s), and /dashboard/api/keys and /usage answered with every one of them (about 1 MB each,
// from synchronous SQLite calls). Now an account has at most 20 keys that are not revoked, and both
// lists come a page of 25 keys at a time, however many keys the account holds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, startDashboardGateway } from '../helpers/dashboard-client.ts';
import type { TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startDashboardGateway();
});

afterAll(async () => {
  await gateway.close();
});

describe('keys per account', () => {
  it('refuses the 21st key that is not revoked with 403 key_limit_reached; revoking one makes room', async () => {
    const client = new DashboardClient(gateway.origin);
    expect((await client.signUp('collector@example.com')).status).toBe(200);
    const made = await Promise.all(Array.from({ length: 24 }, (_, i) => client.call('POST', '/dashboard/api/keys', { name: `key ${i}` })));
    const created = made.filter((answer) => answer.status === 200);
    expect(created).toHaveLength(20);
    for (const answer of made) {
      if (answer.status !== 200) expect(answer).toMatchObject({ status: 403, body: { error: { code: 'key_limit_reached', type: 'permission_error' } } });
    }
    expect((await client.call('POST', '/dashboard/api/keys/revoke', { id: created[0]!.body.record.id })).status).toBe(200);
    expect((await client.call('POST', '/dashboard/api/keys', { name: 'replacement' })).status).toBe(200);
    expect((await client.call('POST', '/dashboard/api/keys', { name: 'one too many' })).status).toBe(403);
  });
});

describe('an account with 5,000 keys', () => {
  let client: DashboardClient;

  beforeAll(async () => {
    client = new DashboardClient(gateway.origin);
    expect((await client.signUp('hoarder@example.com')).status).toBe(200);
    const account = (await gateway.app.store.findAccountByEmail('hoarder@example.com'))!;
    for (let i = 0; i < 5_000; i++) {
      await gateway.app.store.createKey({
        accountId: account.id, digest: randomBytes(32).toString('hex'), name: `key ${i}`, prefix: 'sk_munja_abcd', lastFour: 'wxyz',
        models: null, limits: { rpm: null, tpm: null },
      });
    }
  }, 120_000);

  it('lists its keys a bounded page at a time, newest first, and every key is on some page', async () => {
    const first = await client.call('GET', '/dashboard/api/keys');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 5_000, offset: 0, pageSize: 25 });
    expect(first.body.keys).toHaveLength(25);
    expect(first.body.keys[0].name).toBe('key 4999');
    const last = await client.call('GET', '/dashboard/api/keys/page/4975');
    expect(last.body.keys.map((key: { name: string }) => key.name).at(-1)).toBe('key 0');
    expect((await client.call('GET', '/dashboard/api/keys/page/5000')).body.keys).toEqual([]);
    expect((await client.call('GET', '/dashboard/api/keys/page/-1')).status).toBe(404);
    expect((await client.call('GET', '/dashboard/api/keys/page/1e3')).status).toBe(404);
  });

  it('answers usage for one page of keys: at most 25 keys and 30 days of rows', async () => {
    const account = (await gateway.app.store.findAccountByEmail('hoarder@example.com'))!;
    const page = await gateway.app.store.listKeyPage(account.id, 0, 25);
    const today = new Date().toISOString().slice(0, 10);
    await gateway.app.store.addUsage(page.keys.map((key) => ({ keyId: key.id, day: today, model: 'model-a', requests: 1, promptTokens: 2, completionTokens: 3, costMicros: 4 })));
    const usage = await client.call('GET', '/dashboard/api/usage');
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ total: 5_000, offset: 0, pageSize: 25 });
    expect(usage.body.keys).toHaveLength(25);
    expect(usage.body.rows).toHaveLength(25);
    expect(usage.body.days).toHaveLength(30);
    expect((await client.call('GET', '/dashboard/api/usage/page/25')).body.rows).toEqual([]);
  });
});

describe('many accounts', () => {
  it('are listed to admins 50 at a time, oldest first, each with its count of keys that are not revoked', async () => {
    const admin = new DashboardClient(gateway.origin);
    expect((await admin.signUp('overseer@example.com')).status).toBe(200);
    await gateway.app.store.setAccountAdmin('overseer@example.com', true);
    for (let i = 0; i < 60; i++) await gateway.app.store.createAccount(`many${i}@example.com`);
    const first = await admin.call('GET', '/dashboard/api/admin/accounts');
    expect(first.status).toBe(200);
    expect(first.body.accounts).toHaveLength(50);
    expect(first.body).toMatchObject({ offset: 0, pageSize: 50 });
    const total = first.body.total as number;
    expect(total).toBeGreaterThanOrEqual(63);
    const last = await admin.call('GET', `/dashboard/api/admin/accounts/page/${total - 1}`);
    expect(last.body.accounts.map((account: { email: string }) => account.email)).toEqual(['many59@example.com']);
    const counts = new Map(first.body.accounts.map((account: { email: string; activeKeys: number }) => [account.email, account.activeKeys]));
    expect(counts.get('collector@example.com')).toBe(20);
  });
});
