// Rotation across two instances sharing Redis: the old secret works on both during its grace (even
// once each has cached it), and is refused 401 on both after it; the audit log is the fleet's.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { adminClient, chatCall } from '../helpers/admin-client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

let redis: TestRedis;
let instances: TestGateway[];
let adminKey: string;

beforeAll(async () => {
  redis = await startRedis();
  instances = [await startGateway(undefined, { env: { REDIS_URL: redis.url } }), await startGateway(undefined, { env: { REDIS_URL: redis.url } })];
  adminKey = (await instances[0]!.createKey({ accountEmail: 'root@example.com', admin: true })).key;
}, 30_000);

afterAll(async () => {
  for (const instance of instances) await instance.close();
  await redis.stop();
});

it('keeps the old secret during the grace on every instance, then refuses it on every instance', async () => {
  const [a, b] = instances as [TestGateway, TestGateway];
  const callA = adminClient(a.origin, adminKey);
  await callA('POST', '/v1/admin/accounts', { email: 'test@example.com' });
  const created = (await callA('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'service' })).body;
  // Both instances have the first secret cached before the rotation.
  for (const instance of instances) expect((await chatCall(instance.origin, created.secret)).status).toBe(200);

  // A long grace: the old secret and the new one both work on both instances.
  const rotated = await adminClient(b.origin, adminKey)('POST', `/v1/admin/keys/${created.id}/rotate`, { grace_seconds: 3600 });
  expect(rotated.status).toBe(200);
  for (const instance of instances) {
    expect((await chatCall(instance.origin, rotated.body.secret)).status).toBe(200);
    expect((await chatCall(instance.origin, created.secret)).status).toBe(200);
  }
  // A short grace for the secret just issued: once it is over, both instances refuse it.
  const again = await adminClient(a.origin, adminKey)('POST', `/v1/admin/keys/${created.id}/rotate`, { grace_seconds: 1 });
  expect((await chatCall(a.origin, created.secret)).status).toBe(401);
  for (const instance of instances) expect((await chatCall(instance.origin, again.body.secret)).status).toBe(200);
  for (const instance of instances) {
    await expect.poll(async () => (await chatCall(instance.origin, rotated.body.secret)).status, { timeout: 15_000, interval: 200 }).toBe(401);
  }
  // Refused for good: no instance's cache brings it back, and the new secret still works everywhere.
  for (const instance of instances) {
    expect((await chatCall(instance.origin, created.secret)).status).toBe(401);
    expect((await chatCall(instance.origin, rotated.body.secret)).status).toBe(401);
    expect((await chatCall(instance.origin, again.body.secret)).status).toBe(200);
  }
  const audit = await adminClient(a.origin, adminKey)('GET', `/v1/admin/audit?target=${created.id}`);
  expect(audit.body.data.map((entry: any) => entry.action)).toEqual(['key.rotated', 'key.rotated', 'key.created']);
});

it('revokes on one instance and refuses on the other at once', async () => {
  const [a, b] = instances as [TestGateway, TestGateway];
  const created = (await adminClient(a.origin, adminKey)('POST', '/v1/admin/keys', { account: 'test@example.com' })).body;
  expect((await chatCall(b.origin, created.secret)).status).toBe(200);
  expect((await adminClient(a.origin, adminKey)('DELETE', `/v1/admin/keys/${created.id}`)).status).toBe(200);
  await expect.poll(async () => (await chatCall(b.origin, created.secret)).status, { timeout: 1_000 }).toBe(401);
});
