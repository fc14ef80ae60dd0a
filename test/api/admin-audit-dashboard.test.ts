// Every change made through the dashboard lands in the audit log with the signed-in account as the
// actor and its address, and is readable through GET /v1/admin/audit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { adminClient, chatCall } from '../helpers/admin-client.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

const PASSWORD = 'correct horse battery';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
  const admin = await gateway.app.store.createAccount('boss@example.com', { isAdmin: true });
  await gateway.app.store.setPasswordHash(admin.id, await new PasswordHasher(1).hash(PASSWORD));
});

afterAll(async () => {
  await gateway.close();
});

it('audits sign-up, keys, suspension, invites and password changes made in the dashboard', async () => {
  const user = new DashboardClient(gateway.origin);
  expect((await user.signUp('user@example.com', PASSWORD)).status).toBe(200);
  const userId = (await gateway.app.store.findAccountByEmail('user@example.com'))!.id;
  const created = await user.call('POST', '/dashboard/api/keys', { name: 'laptop', models: ['fast'] });
  expect(created.status).toBe(200);
  const keyId = created.body.record.id;
  expect((await user.call('POST', '/dashboard/api/keys/revoke', { id: keyId })).status).toBe(200);
  expect((await user.call('POST', '/dashboard/api/password', { currentPassword: PASSWORD, newPassword: 'another fine passphrase' })).status).toBe(200);

  const admin = new DashboardClient(gateway.origin);
  expect((await admin.signIn('boss@example.com', PASSWORD)).status).toBe(200);
  const bossId = (await gateway.app.store.findAccountByEmail('boss@example.com'))!.id;
  expect((await admin.call('POST', '/dashboard/api/admin/accounts/status', { id: userId, status: 'suspended' })).status).toBe(200);
  expect((await admin.call('POST', '/dashboard/api/admin/accounts/status', { id: userId, status: 'active' })).status).toBe(200);
  const invite = await admin.call('POST', '/dashboard/api/admin/invites');
  expect(invite.status).toBe(200);

  const { key } = await gateway.createKey({ accountEmail: 'boss@example.com', admin: true });
  const audit = await adminClient(gateway.origin, key)('GET', '/v1/admin/audit');
  expect(audit.status).toBe(200);
  const seen = audit.body.data.map((entry: any) => [entry.actor, entry.action, entry.target]);
  expect(seen).toEqual([
    [bossId, 'invite.created', ''],
    [bossId, 'account.resumed', userId],
    [bossId, 'account.suspended', userId],
    [userId, 'password.set', userId],
    [userId, 'key.revoked', keyId],
    [userId, 'key.created', keyId],
    [userId, 'account.created', userId],
  ]);
  expect(audit.body.data.every((entry: any) => entry.address === '127.0.0.1')).toBe(true);
  const text = JSON.stringify(audit.body);
  expect(text).not.toContain(invite.body.invite);
  expect(text).not.toContain(created.body.key.slice(9));
  expect(text).not.toContain('passphrase');
});

it('lets a dashboard admin create an admin key and read the audit log a page at a time; nobody else', async () => {
  const admin = new DashboardClient(gateway.origin);
  expect((await admin.signIn('boss@example.com', PASSWORD)).status).toBe(200);
  const created = await admin.call('POST', '/dashboard/api/admin/keys', { name: 'ci' });
  expect(created.status).toBe(200);
  expect(created.body.record).toMatchObject({ name: 'ci', admin: true });
  expect((await chatCallStatus(created.body.key))).toBe(403);
  expect((await adminClient(gateway.origin, created.body.key)('GET', '/v1/admin/audit?limit=1')).body.data[0]).toMatchObject({
    action: 'key.created', target: created.body.record.id, fields: { admin: true },
  });

  for (let i = 0; i < 50; i++) await admin.call('POST', '/dashboard/api/admin/invites');
  const first = await admin.call('GET', '/dashboard/api/admin/audit');
  expect(first.status).toBe(200);
  expect(first.body.entries).toHaveLength(50);
  expect(first.body.hasMore).toBe(true);
  const older = await admin.call('GET', `/dashboard/api/admin/audit/before/${first.body.entries.at(-1).id}`);
  expect(first.body.entries.every((entry: any) => entry.action === 'invite.created')).toBe(true);
  expect(older.body.entries[0]).toMatchObject({ action: 'key.created', target: created.body.record.id });
  expect(older.body.hasMore).toBe(false);
  expect((await admin.call('GET', '/dashboard/api/admin/audit/before/x;y')).status).toBe(404);

  const user = new DashboardClient(gateway.origin);
  expect((await user.signIn('user@example.com', 'another fine passphrase')).status).toBe(200);
  const refused = await user.call('GET', '/dashboard/api/admin/audit');
  expect(refused.status).toBe(403);
  expect(refused.body.error.code).toBe('admin_required');
  expect((await user.call('POST', '/dashboard/api/admin/keys', { name: 'x' })).status).toBe(403);
});

async function chatCallStatus(key: string): Promise<number> {
  return (await chatCall(gateway.origin, key)).status;
}
