// The admin API's expiry, budget, priority and cache fields on keys, and budget, priority and rate
// limits on accounts, on the default settings: each set, shown, changed, cleared and audited, each bad value
// refused in the spec's shape; and a dashboard session without an admin key is a 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { adminClient, chatCall } from '../helpers/admin-client.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

const PASSWORD = 'correct horse battery';
let gateway: TestGateway;
let call: ReturnType<typeof adminClient>;
let adminAccountId: string;

beforeAll(async () => {
  gateway = await startGateway();
  call = adminClient(gateway.origin, (await gateway.createKey({ accountEmail: 'root@example.com', admin: true })).key);
  const root = await gateway.app.store.findAccountByEmail('root@example.com');
  adminAccountId = root!.id;
  await gateway.app.store.setPasswordHash(adminAccountId, await new PasswordHasher(1).hash(PASSWORD));
  await gateway.app.store.setAccountAdmin('root@example.com', true);
});

afterAll(async () => {
  await gateway.close();
});

function expectError(answer: { status: number; body: any }, status: number, code?: string, param?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body.error).toMatchObject({ type: expect.any(String), message: expect.any(String), ...(code === undefined ? {} : { code }) });
  if (param !== undefined) expect(answer.body.error.param).toBe(param);
}

async function lastAudit(target: string): Promise<any> {
  return (await call('GET', `/v1/admin/audit?target=${target}`)).body.data[0];
}

describe('keys', () => {
  it('creates a key with an expiry (Unix seconds), a budget, a priority and a cache setting, shown and audited', async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
    // The account must exist first.
    expectError(await call('POST', '/v1/admin/keys', { account: 'alice@example.com', priority: 'high' }), 404, 'account_not_found', 'account');
    await call('POST', '/v1/admin/accounts', { email: 'alice@example.com' });
    const answer = await call('POST', '/v1/admin/keys', {
      account: 'alice@example.com', expires_at: expiresAt, budget: { amount: 5.25, period: 'month' }, priority: 'high', cache: 'off',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      expires_at: expiresAt, budget: { amount: 5.25, period: 'month', currency: 'USD' }, priority: 'high', cache: 'off',
    });
    const stored = await gateway.app.store.findKeyById(answer.body.id);
    expect(stored).toMatchObject({ expiresAt: expiresAt * 1000, budget: { limit: 5_250_000, period: 'month' }, priority: 'high', cache: 'off' });
    expect((await call('GET', `/v1/admin/keys/${answer.body.id}`)).body).toEqual({ ...answer.body, secret: undefined });
    expect((await lastAudit(answer.body.id)).fields).toMatchObject({
      expiresAt: new Date(expiresAt * 1000).toISOString(), budget: { amount: 5.25, period: 'month' }, priority: 'high', cache: 'off',
    });
    expect(JSON.stringify(await lastAudit(answer.body.id))).not.toContain(answer.body.secret);
  });

  it('creates a key without them: all null, and works', async () => {
    const answer = await call('POST', '/v1/admin/keys', { account: 'alice@example.com' });
    expect(answer.body).toMatchObject({ expires_at: null, budget: null, priority: null, cache: null });
    expect((await chatCall(gateway.origin, answer.body.secret)).status).toBe(200);
  });

  it('changes each on PATCH, takes an ISO-8601 expiry, leaves what is not named, and clears with null', async () => {
    const { id } = (await call('POST', '/v1/admin/keys', { account: 'alice@example.com', priority: 'low' })).body;
    const iso = '2099-01-31T12:00:00Z';
    const set = await call('PATCH', `/v1/admin/keys/${id}`, { expires_at: iso, budget: { amount: 0.000001, period: 'day' }, cache: 'on' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      expires_at: Date.parse(iso) / 1000, budget: { amount: 0.000001, period: 'day', currency: 'USD' }, priority: 'low', cache: 'on',
    });
    expect((await gateway.app.store.findKeyById(id))?.budget).toEqual({ limit: 1, period: 'day' });
    expect((await lastAudit(id))).toMatchObject({ action: 'key.changed', fields: { expiresAt: '2099-01-31T12:00:00.000Z', budget: { amount: 0.000001, period: 'day' }, cache: 'on' } });
    const cleared = await call('PATCH', `/v1/admin/keys/${id}`, { expires_at: null, budget: null, priority: null, cache: null });
    expect(cleared.body).toMatchObject({ expires_at: null, budget: null, priority: null, cache: null });
    expect((await lastAudit(id)).fields).toEqual({ expiresAt: null, budget: null, priority: null, cache: null });
  });

  it('refuses an expiry in the past, or unreadable, and every bad budget, priority or cache value', async () => {
    const { id } = (await call('POST', '/v1/admin/keys', { account: 'alice@example.com' })).body;
    const past = Math.floor(Date.now() / 1000) - 1;
    for (const path of ['/v1/admin/keys', `/v1/admin/keys/${id}`]) {
      const method = path === '/v1/admin/keys' ? 'POST' : 'PATCH';
      const base = method === 'POST' ? { account: 'alice@example.com' } : {};
      expectError(await call(method, path, { ...base, expires_at: past }), 400, 'invalid_value', 'expires_at');
      expectError(await call(method, path, { ...base, expires_at: '2000-01-01T00:00:00Z' }), 400, 'invalid_value', 'expires_at');
      expectError(await call(method, path, { ...base, expires_at: 'next week' }), 400, 'invalid_value', 'expires_at');
      expectError(await call(method, path, { ...base, expires_at: '2099-01-01T00:00:00' }), 400, 'invalid_value', 'expires_at');
      expectError(await call(method, path, { ...base, expires_at: 1.5 }), 400);
      expectError(await call(method, path, { ...base, budget: { amount: 1.0000001, period: 'day' } }), 400, 'invalid_value', 'budget');
      expectError(await call(method, path, { ...base, budget: { amount: -1, period: 'day' } }), 400);
      expectError(await call(method, path, { ...base, budget: { amount: 5, period: 'week' } }), 400);
      expectError(await call(method, path, { ...base, budget: { amount: 5 } }), 400);
      expectError(await call(method, path, { ...base, budget: 5 }), 400);
      expectError(await call(method, path, { ...base, priority: 'urgent' }), 400);
      expectError(await call(method, path, { ...base, cache: true }), 400);
    }
    // Nothing was changed by the refusals.
    expect(await gateway.app.store.findKeyById(id)).toMatchObject({ expiresAt: null, budget: null, priority: null, cache: null });
  });
});

describe('accounts', () => {
  it('sets, shows, audits and clears an account budget and priority', async () => {
    const { id } = (await call('POST', '/v1/admin/accounts', { email: 'bob@example.com' })).body;
    const set = await call('PATCH', `/v1/admin/accounts/${id}`, { budget: { amount: 100, period: 'total' }, priority: 'low' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ budget: { amount: 100, period: 'total', currency: 'USD' }, priority: 'low', status: 'active' });
    expect(await gateway.app.store.findAccountById(id)).toMatchObject({ budget: { limit: 100_000_000, period: 'total' }, priority: 'low' });
    expect(await lastAudit(id)).toMatchObject({ action: 'account.changed', fields: { budget: { amount: 100, period: 'total' }, priority: 'low' } });
    expect((await call('GET', `/v1/admin/accounts/${id}`)).body).toEqual(set.body);
    const suspended = await call('PATCH', `/v1/admin/accounts/${id}`, { status: 'suspended' });
    expect(suspended.body).toMatchObject({ status: 'suspended', budget: { amount: 100 }, priority: 'low' });
    const cleared = await call('PATCH', `/v1/admin/accounts/${id}`, { budget: null, priority: null });
    expect(cleared.body).toMatchObject({ budget: null, priority: null });
  });

  it('sets the rate limits an account\'s keys share: held across its keys at once, shown, audited, cleared', async () => {
    const { id } = (await call('POST', '/v1/admin/accounts', { email: 'dora@example.com' })).body;
    const keys = [
      (await call('POST', '/v1/admin/keys', { account: id })).body.secret as string,
      (await call('POST', '/v1/admin/keys', { account: id })).body.secret as string,
    ];
    const set = await call('PATCH', `/v1/admin/accounts/${id}`, { rpm: 3 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ rpm: 3, tpm: null });
    expect(await gateway.app.store.findAccountById(id)).toMatchObject({ limits: { rpm: 3, tpm: null } });
    expect(await lastAudit(id)).toMatchObject({ action: 'account.changed', fields: { rpm: 3 } });
    // Three requests in a minute between both keys; the fourth, from either, is refused by the account's bucket.
    const statuses = [];
    for (const key of [keys[0]!, keys[1]!, keys[0]!, keys[1]!]) statuses.push((await chatCall(gateway.origin, key)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await chatCall(gateway.origin, keys[0]!);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit-requests')).not.toBeNull();
    const cleared = await call('PATCH', `/v1/admin/accounts/${id}`, { rpm: null });
    expect(cleared.body).toMatchObject({ rpm: null, tpm: null });
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { rpm: 0 }), 400);
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { tpm: 'lots' }), 400);
  });

  it('refuses bad budgets, priorities and limits', async () => {
    const { id } = (await call('POST', '/v1/admin/accounts', { email: 'carol@example.com' })).body;
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { budget: { amount: 0.1234567, period: 'day' } }), 400, 'invalid_value', 'budget');
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { budget: { amount: 'five', period: 'day' } }), 400);
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { priority: 'top' }), 400);
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { rpm: -1 }), 400);
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { rpms: 10 }), 400, 'unknown_parameter', 'rpms');
    expectError(await call('PATCH', '/v1/admin/accounts/acct_missing', { priority: 'high' }), 404, 'account_not_found');
    expect(await gateway.app.store.findAccountById(id)).toMatchObject({ budget: null, priority: null });
  });
});

describe('a dashboard session', () => {
  it('is refused with 403 admin_required on the admin API, even an admin’s; no credentials at all stay a 401', async () => {
    const dashboard = new DashboardClient(gateway.origin);
    expect((await dashboard.signIn('root@example.com', PASSWORD)).status).toBe(200);
    expect(dashboard.cookie).not.toBe('');
    for (const [method, path] of [['GET', '/v1/admin/accounts'], ['POST', '/v1/admin/keys'], ['PATCH', '/v1/admin/accounts/acct_x']] as const) {
      const answer = await dashboard.call(method, path, method === 'GET' ? undefined : {});
      expectError(answer, 403, 'admin_required');
    }
    const bare = await fetch(`${gateway.origin}/v1/admin/accounts`);
    expect(bare.status).toBe(401);
    expect((await bare.json()).error.code).toBe('invalid_api_key');
  });
});

describe('the dashboard keys page', () => {
  it("shows a key's expiry, priority and cache setting, and its budget, to its owner", async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 7_200;
    const { id } = (await call('POST', '/v1/admin/keys', {
      account: 'root@example.com', expires_at: expiresAt, priority: 'low', cache: 'on', budget: { amount: 3, period: 'day' },
    })).body;
    const dashboard = new DashboardClient(gateway.origin);
    expect((await dashboard.signIn('root@example.com', PASSWORD)).status).toBe(200);
    const { keys } = (await dashboard.call('GET', '/dashboard/api/keys')).body;
    expect(keys.find((key: any) => key.id === id)).toMatchObject({
      expiresAt: expiresAt * 1000, priority: 'low', cache: 'on', budget: { scope: 'key', limit: '3.000000', period: 'day', spent: '0.000000' },
    });
  });
});
