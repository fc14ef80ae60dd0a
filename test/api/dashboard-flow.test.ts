// The dashboard's JSON API end to end on both stores: sign up, create a key (shown once), use it
// on /v1, see the usage, revoke it (401 within a second); admins suspend and resume accounts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DashboardClient, startDashboardGateway } from '../helpers/dashboard-client.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis.stop();
});

function chat(gateway: TestGateway, key: string): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ max_tokens: 5 }),
  });
}

/** The first chat answer with `status`: a change to a key or account takes effect within a second. */
function answerWithin1s(gateway: TestGateway, key: string, status: number): Promise<Response> {
  return vi.waitFor(async () => {
    const response = await chat(gateway, key);
    expect(response.status).toBe(status);
    return response;
  }, { timeout: 1_000, interval: 100 });
}

describe.each(['embedded', 'redis'] as const)('dashboard API on the %s store', (kind) => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startDashboardGateway(kind === 'redis' ? { redisUrl: redis.url } : {});
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('signs up, creates a key shown once, uses it, sees the usage, revokes it', async () => {
    const ana = new DashboardClient(gateway.origin);
    const signedUp = await ana.signUp(`ana-${kind}@example.com`);
    expect(signedUp.status).toBe(200);
    expect(signedUp.body.account).toMatchObject({ email: `ana-${kind}@example.com`, status: 'active', isAdmin: false });
    expect(signedUp.body.models).toEqual(['auto', 'default', 'pro', 'fast', 'hrllm']);

    const created = await ana.call('POST', '/dashboard/api/keys', { name: 'backend', models: ['fast'], rpm: 100 });
    expect(created.status).toBe(200);
    const key: string = created.body.key;
    expect(key).toMatch(/^sk_munja_[0-9A-Za-z]{28}$/);
    expect(created.body.record).toMatchObject({ name: 'backend', models: ['fast'], limits: { rpm: 100, tpm: null }, revokedAt: null });

    const listed = await ana.call('GET', '/dashboard/api/keys');
    expect(listed.body.keys).toHaveLength(1);
    expect(listed.body.keys[0]).toMatchObject({ prefix: key.slice(0, 13), lastFour: key.slice(-4) });
    expect(JSON.stringify(listed.body)).not.toContain(key);

    expect((await chat(gateway, key)).status).toBe(200);
    await expect.poll(async () => (await ana.call('GET', '/dashboard/api/usage')).body.rows).not.toHaveLength(0);
    const usage = await ana.call('GET', '/dashboard/api/usage');
    expect(usage.body.days).toHaveLength(30);
    expect(usage.body.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(usage.body.rows).toEqual([expect.objectContaining({ keyId: created.body.record.id, day: usage.body.days.at(-1), requests: 1 })]);
    expect(usage.body.rows[0].completionTokens).toBeGreaterThan(0);

    const revoked = await ana.call('POST', '/dashboard/api/keys/revoke', { id: created.body.record.id });
    expect(revoked.status).toBe(200);
    expect(revoked.body.record.revokedAt).toBeTypeOf('number');
    await answerWithin1s(gateway, key, 401);
  });

  it('refuses models and limits beyond what the operator allows, and keys of other accounts', async () => {
    const bo = new DashboardClient(gateway.origin);
    await bo.signUp(`bo-${kind}@example.com`);
    const unknownModel = await bo.call('POST', '/dashboard/api/keys', { name: 'x', models: ['gpt-4'] });
    expect(unknownModel.status).toBe(400);
    expect(unknownModel.body.error).toMatchObject({ code: 'invalid_value', param: 'models' });
    const tooFast = await bo.call('POST', '/dashboard/api/keys', { name: 'x', rpm: 601 });
    expect(tooFast.body.error).toMatchObject({ code: 'invalid_value', param: 'rpm' });
    const noName = await bo.call('POST', '/dashboard/api/keys', { name: '  ' });
    expect(noName.body.error).toMatchObject({ code: 'invalid_value', param: 'name' });

    const other = await gateway.createKey({ accountEmail: `other-${kind}@example.com` });
    const stolen = await bo.call('POST', '/dashboard/api/keys/revoke', { id: other.id });
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('key_not_found');
    expect((await chat(gateway, other.key)).status).toBe(200);
  });

  it('lets an admin suspend an account: its keys get 403, it can still sign in and sees why', async () => {
    const admin = new DashboardClient(gateway.origin);
    const user = new DashboardClient(gateway.origin);
    await admin.signUp(`root-${kind}@example.com`);
    const userAccount = (await user.signUp(`cy-${kind}@example.com`)).body.account;
    const { key } = (await user.call('POST', '/dashboard/api/keys', { name: 'k' })).body;

    expect((await admin.call('GET', '/dashboard/api/admin/accounts')).body.error.code).toBe('admin_required');
    await gateway.app.store.setAccountAdmin(`root-${kind}@example.com`, true); // what `munja accounts admin` does
    const listed = await admin.call('GET', '/dashboard/api/admin/accounts');
    expect(listed.status).toBe(200);
    expect(listed.body.accounts).toContainEqual(expect.objectContaining({ id: userAccount.id, status: 'active', activeKeys: 1 }));

    const suspended = await admin.call('POST', '/dashboard/api/admin/accounts/status', { id: userAccount.id, status: 'suspended' });
    expect(suspended.body.account.status).toBe('suspended');
    const refused = await answerWithin1s(gateway, key, 403);
    expect((await refused.json()).error.code).toBe('account_suspended');

    const again = new DashboardClient(gateway.origin);
    expect((await again.signIn(`cy-${kind}@example.com`)).body.account.status).toBe('suspended');
    const blocked = await again.call('POST', '/dashboard/api/keys', { name: 'more' });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('account_suspended');

    await admin.call('POST', '/dashboard/api/admin/accounts/status', { id: userAccount.id, status: 'active' });
    await answerWithin1s(gateway, key, 200);
    const self = await admin.call('POST', '/dashboard/api/admin/accounts/status', { id: listed.body.accounts.find((a: any) => a.isAdmin && a.email.startsWith('root')).id, status: 'suspended' });
    expect(self.body.error).toMatchObject({ code: 'invalid_value', param: 'id' });
  });
});
