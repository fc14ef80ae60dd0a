// Every change made through the dashboard lands in the audit log with the signed-in account as the
// actor and its address, and is readable through GET /v1/admin/audit.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { adminClient } from '../helpers/admin-client.ts';
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
