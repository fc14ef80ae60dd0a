// The admin API (/v1/admin/…) on the default settings: admin keys only, every endpoint with its
// success and its errors, and an audit entry for every change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, chatCall } from '../helpers/admin-client.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let call: ReturnType<typeof adminClient>;
let adminKey: string;
let adminAccountId: string;
let ordinaryKey: string;

beforeAll(async () => {
  gateway = await startGateway();
  const admin = await gateway.createKey({ accountEmail: 'root@example.com', admin: true });
  adminKey = admin.key;
  adminAccountId = (await gateway.app.store.findAccountByEmail('root@example.com'))!.id;
  ordinaryKey = (await gateway.createKey()).key;
  call = adminClient(gateway.origin, adminKey);
});

afterAll(async () => {
  await gateway.close();
});

function expectError(answer: { status: number; body: any }, status: number, code: string, param?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body.error).toMatchObject({ code, type: expect.any(String), message: expect.any(String) });
  if (param !== undefined) expect(answer.body.error.param).toBe(param);
}

async function auditOf(target: string): Promise<any[]> {
  const answer = await call('GET', `/v1/admin/audit?target=${target}`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}

describe('admin keys', () => {
  it('are refused outside the admin API, and ordinary keys inside it', async () => {
    const chat = await chatCall(gateway.origin, adminKey);
    expect(chat.status).toBe(403);
    expect((await chat.json()).error.code).toBe('admin_key_not_allowed');
    expectError(await call('GET', '/v1/models'), 403, 'admin_key_not_allowed');
    expect((await chatCall(gateway.origin, ordinaryKey)).status).toBe(200);

    const ordinary = adminClient(gateway.origin, ordinaryKey);
    expectError(await ordinary('GET', '/v1/admin/accounts'), 403, 'admin_required');
    expectError(await ordinary('POST', '/v1/admin/keys', { account: 'test@example.com' }), 403, 'admin_required');
    expectError(await adminClient(gateway.origin, '')('GET', '/v1/admin/accounts', undefined, { authorization: '' }), 401, 'invalid_api_key');
    expectError(await adminClient(gateway.origin, 'sk_munja_nope')('GET', '/v1/admin/audit'), 401, 'invalid_api_key');
  });

  it('answers an unknown admin path or method in the spec’s shape', async () => {
    expectError(await call('GET', '/v1/admin/nothing'), 404, 'unknown_route');
    expectError(await call('PUT', '/v1/admin/accounts'), 405, 'method_not_allowed');
    expectError(await call('GET', '/v1/admin/keys/key_x/rotate'), 404, 'unknown_route');
    expectError(await call('POST', '/v1/admin/keys/key_x/other'), 404, 'unknown_route');
  });
});

describe('accounts', () => {
  it('creates an account once, audited, and reads it', async () => {
    const created = await call('POST', '/v1/admin/accounts', { email: 'New.User@Example.com' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      object: 'account', id: expect.stringMatching(/^acct_/), email: 'new.user@example.com', status: 'active', admin: false, created_at: expect.any(Number),
      budget: null, priority: null, rpm: null, tpm: null,
    });
    const again = await call('POST', '/v1/admin/accounts', { email: 'new.user@example.com', admin: true });
    expect(again.body).toEqual(created.body);
    expect(await call('GET', `/v1/admin/accounts/${created.body.id}`)).toEqual(created);
    const entries = await auditOf(created.body.id);
    expect(entries).toEqual([expect.objectContaining({
      object: 'audit.entry', actor: adminAccountId, address: '127.0.0.1', action: 'account.created', target: created.body.id,
      fields: { email: 'new.user@example.com', admin: false },
    })]);
  });

  it('refuses bad bodies with the field at fault', async () => {
    expectError(await call('POST', '/v1/admin/accounts', {}), 400, 'missing_required_parameter', 'email');
    expectError(await call('POST', '/v1/admin/accounts', { email: 'not-an-email' }), 400, 'invalid_value', 'email');
    expectError(await call('POST', '/v1/admin/accounts', { email: 'a@example.com', role: 'x' }), 400, 'unknown_parameter', 'role');
    expectError(await call('POST', '/v1/admin/accounts', { email: 7 }), 400, 'invalid_type', 'email');
    expectError(await call('POST', '/v1/admin/accounts', '{"email":'), 400, 'invalid_json');
    expectError(await call('POST', '/v1/admin/accounts', '[]'), 400, 'invalid_body');
    expectError(await call('POST', '/v1/admin/accounts', '{"email":"a@example.com"}', { 'content-type': 'text/plain' }), 400, 'invalid_content_type');
    expectError(await call('GET', '/v1/admin/accounts/acct_missing'), 404, 'account_not_found');
  });

  it('lists accounts a page at a time with an opaque cursor', async () => {
    for (const n of [1, 2, 3]) await call('POST', '/v1/admin/accounts', { email: `page${n}@example.com` });
    const all = await call('GET', '/v1/admin/accounts?limit=500');
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    const emails = all.body.data.map((account: any) => account.email);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await call('GET', `/v1/admin/accounts?limit=2${after}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((account: any) => account.email));
      if (!page.body.has_more) break;
      after = `&after=${page.body.last_id}`;
    }
    expect(seen).toEqual(emails);
    expect(emails.length).toBeGreaterThanOrEqual(5);
    expect((await call('GET', '/v1/admin/accounts')).body.data.length).toBe(Math.min(50, emails.length));
    for (const limit of ['0', '501', 'x', '1.5']) expectError(await call('GET', `/v1/admin/accounts?limit=${limit}`), 400, 'invalid_value', 'limit');
    expectError(await call('GET', '/v1/admin/accounts?after=bogus'), 400, 'invalid_value', 'after');
  });

  it('suspends and resumes an account (its keys refused meanwhile), grants admin, audited; never its own', async () => {
    const { key } = await gateway.createKey({ accountEmail: 'suspend-me@example.com', createAccount: true });
    const id = (await gateway.app.store.findAccountByEmail('suspend-me@example.com'))!.id;
    const suspended = await call('PATCH', `/v1/admin/accounts/${id}`, { status: 'suspended' });
    expect(suspended.body).toMatchObject({ id, status: 'suspended' });
    expect((await chatCall(gateway.origin, key)).status).toBe(403);
    expect((await call('PATCH', `/v1/admin/accounts/${id}`, { status: 'active', admin: true })).body).toMatchObject({ status: 'active', admin: true });
    expect((await chatCall(gateway.origin, key)).status).toBe(200);
    expect((await auditOf(id)).map((entry) => [entry.action, entry.fields])).toEqual([
      ['account.admin_granted', { admin: true }], ['account.resumed', { status: 'active' }], ['account.suspended', { status: 'suspended' }],
    ]);

    expectError(await call('PATCH', `/v1/admin/accounts/${adminAccountId}`, { status: 'suspended' }), 400, 'invalid_value', 'id');
    const empty = await call('PATCH', `/v1/admin/accounts/${id}`, {});
    expectError(empty, 400, 'invalid_value');
    expect(empty.body.error.message).toBe('The request body must have at least 1 field.');
    expectError(await call('PATCH', `/v1/admin/accounts/${id}`, { status: 'gone' }), 400, 'invalid_value', 'status');
    expectError(await call('PATCH', '/v1/admin/accounts/acct_missing', { status: 'active' }), 404, 'account_not_found');
  });
});

describe('keys', () => {
  it('creates a key whose secret is shown once and works at once, audited without the secret', async () => {
    const created = await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'ci', models: ['fast'], rpm: 100 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'api_key', id: expect.stringMatching(/^key_/), name: 'ci', models: ['fast'], rpm: 100, tpm: null, admin: false, revoked_at: null,
      secret: expect.stringMatching(/^sk_munja_/),
    });
    expect((await chatCall(gateway.origin, created.body.secret)).status).toBe(200);
    const read = await call('GET', `/v1/admin/keys/${created.body.id}`);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.id).toBe(created.body.id);
    const [entry] = await auditOf(created.body.id);
    expect(entry).toMatchObject({ action: 'key.created', fields: { name: 'ci', models: ['fast'], rpm: 100 } });
    expect(JSON.stringify(entry)).not.toContain(created.body.secret.slice(9));
  });

  it('refuses a key for an unknown account or model, and bad fields', async () => {
    expectError(await call('POST', '/v1/admin/keys', { account: 'nobody@example.com' }), 404, 'account_not_found', 'account');
    expectError(await call('POST', '/v1/admin/keys', { account: 'test@example.com', models: ['nope'] }), 400, 'invalid_value', 'models');
    expectError(await call('POST', '/v1/admin/keys', { account: 'test@example.com', rpm: 0 }), 400, 'invalid_value', 'rpm');
    expectError(await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'x'.repeat(65) }), 400, 'invalid_value', 'name');
    expectError(await call('POST', '/v1/admin/keys', { name: 'x' }), 400, 'missing_required_parameter', 'account');
    expectError(await call('GET', '/v1/admin/keys/key_missing'), 404, 'key_not_found');
  });

  it('keeps to the per-account key cap (20 by default)', async () => {
    await call('POST', '/v1/admin/accounts', { email: 'capped@example.com' });
    for (let i = 0; i < 20; i++) expect((await call('POST', '/v1/admin/keys', { account: 'capped@example.com' })).status).toBe(200);
    expectError(await call('POST', '/v1/admin/keys', { account: 'capped@example.com' }), 403, 'key_limit_reached');
  });

  it('lists an account’s keys, paged', async () => {
    const account = 'lister@example.com';
    for (const name of ['a', 'b', 'c']) await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: `${account}-${name}` });
    await call('POST', '/v1/admin/accounts', { email: account });
    for (const name of ['a', 'b', 'c']) await call('POST', '/v1/admin/keys', { account, name });
    const first = await call('GET', `/v1/admin/keys?account=${account}&limit=2`);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((key: any) => key.name)).toEqual(['a', 'b']);
    const second = await call('GET', `/v1/admin/keys?account=${account}&limit=2&after=${first.body.last_id}`);
    expect(second.body.data.map((key: any) => key.name)).toEqual(['c']);
    expect(second.body.has_more).toBe(false);
    expectError(await call('GET', '/v1/admin/keys'), 400, 'missing_required_parameter', 'account');
    expectError(await call('GET', '/v1/admin/keys?account=acct_missing'), 404, 'account_not_found', 'account');
  });

  it('changes a key’s name, models and limits, at once on the API, audited', async () => {
    const created = (await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'old' })).body;
    const changed = await call('PATCH', `/v1/admin/keys/${created.id}`, { name: 'new', models: ['pro'], tpm: 5000 });
    expect(changed.body).toMatchObject({ id: created.id, name: 'new', models: ['pro'], tpm: 5000, rpm: null });
    const chat = await chatCall(gateway.origin, created.secret);
    expect(chat.status).toBe(403);
    expect((await chat.json()).error.code).toBe('model_not_allowed');
    expect((await auditOf(created.id))[0]).toMatchObject({ action: 'key.changed', fields: { name: 'new', models: ['pro'], tpm: 5000 } });
    expectError(await call('PATCH', `/v1/admin/keys/${created.id}`, { secret: 'x' }), 400, 'unknown_parameter', 'secret');
    expectError(await call('PATCH', '/v1/admin/keys/key_missing', { name: 'x' }), 404, 'key_not_found');
  });

  it('rotates a key: a new secret for the same id; without grace the old one is refused at once', async () => {
    const created = (await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'rotated', rpm: 77 })).body;
    expect((await chatCall(gateway.origin, created.secret)).status).toBe(200);
    const rotated = await call('POST', `/v1/admin/keys/${created.id}/rotate`);
    expect(rotated.body).toMatchObject({ id: created.id, rpm: 77, secret: expect.stringMatching(/^sk_munja_/) });
    expect(rotated.body.secret).not.toBe(created.secret);
    expect((await chatCall(gateway.origin, created.secret)).status).toBe(401);
    expect((await chatCall(gateway.origin, rotated.body.secret)).status).toBe(200);

    const graced = await call('POST', `/v1/admin/keys/${created.id}/rotate`, { grace_seconds: 3600 });
    expect((await chatCall(gateway.origin, rotated.body.secret)).status).toBe(200);
    expect((await chatCall(gateway.origin, graced.body.secret)).status).toBe(200);
    expect((await auditOf(created.id)).slice(0, 2).map((entry) => [entry.action, entry.fields.grace_seconds])).toEqual([
      ['key.rotated', 3600], ['key.rotated', 0],
    ]);
    expectError(await call('POST', `/v1/admin/keys/${created.id}/rotate`, { grace_seconds: 86_401 }), 400, 'invalid_value', 'grace_seconds');
    expectError(await call('POST', '/v1/admin/keys/key_missing/rotate'), 404, 'key_not_found');
  });

  it('revokes a key (401 at once, even within a rotation’s grace), audited; a revoked key is not rotated', async () => {
    const created = (await call('POST', '/v1/admin/keys', { account: 'test@example.com', name: 'doomed' })).body;
    const graced = (await call('POST', `/v1/admin/keys/${created.id}/rotate`, { grace_seconds: 3600 })).body;
    const revoked = await call('DELETE', `/v1/admin/keys/${created.id}`);
    expect(revoked.body).toMatchObject({ id: created.id, revoked_at: expect.any(Number) });
    expect((await chatCall(gateway.origin, created.secret)).status).toBe(401);
    expect((await chatCall(gateway.origin, graced.secret)).status).toBe(401);
    expect((await auditOf(created.id))[0]).toMatchObject({ action: 'key.revoked' });
    expectError(await call('POST', `/v1/admin/keys/${created.id}/rotate`), 400, 'invalid_value', 'id');
    expectError(await call('PATCH', `/v1/admin/keys/${created.id}`, { name: 'x' }), 400, 'invalid_value', 'id');
    expectError(await call('DELETE', '/v1/admin/keys/key_missing'), 404, 'key_not_found');
  });

  it('creates admin keys only through an admin', async () => {
    const created = (await call('POST', '/v1/admin/keys', { account: 'root@example.com', admin: true })).body;
    expect(created.admin).toBe(true);
    expect((await adminClient(gateway.origin, created.secret)('GET', '/v1/admin/audit?limit=1')).status).toBe(200);
  });
});

describe('usage', () => {
  it('answers requests, tokens and spend per key, day and model, filtered and paged', async () => {
    await call('POST', '/v1/admin/accounts', { email: 'usage@example.com' });
    const one = (await call('POST', '/v1/admin/keys', { account: 'usage@example.com' })).body;
    const two = (await call('POST', '/v1/admin/keys', { account: 'usage@example.com' })).body;
    await gateway.app.store.addUsage([
      { keyId: one.id, day: '2025-03-01', model: 'model-a', requests: 2, promptTokens: 20, completionTokens: 5, costMicros: 1_250_000 },
      { keyId: one.id, day: '2025-03-02', model: 'model-a', requests: 1, promptTokens: 10, completionTokens: 1, costMicros: 7 },
      { keyId: one.id, day: '2025-03-02', model: 'model-b', requests: 3, promptTokens: 30, completionTokens: 3, costMicros: 900 },
      { keyId: two.id, day: '2025-03-02', model: 'model-a', requests: 4, promptTokens: 40, completionTokens: 4, costMicros: 0 },
      { keyId: two.id, day: '2025-03-03', model: '', requests: 5, promptTokens: 50, completionTokens: 5, costMicros: 0 },
    ]);
    const range = 'from=2025-03-01&to=2025-03-31';
    const all = await call('GET', `/v1/admin/usage?account=usage@example.com&${range}`);
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data).toHaveLength(5);
    expect(all.body.data[0]).toEqual({
      object: 'usage.day', day: '2025-03-01', account: one.account, key: one.id, model: 'model-a',
      requests: 2, prompt_tokens: 20, completion_tokens: 5, cost: 1.25, cost_micros: 1_250_000, currency: 'USD',
    });
    // Usage counted before models were has no model.
    expect(all.body.data[4]).toMatchObject({ day: '2025-03-03', key: two.id, model: null, cost: 0, cost_micros: 0 });
    expect((await call('GET', `/v1/admin/usage?key=${two.id}&${range}`)).body.data.map((row: any) => row.requests)).toEqual([4, 5]);
    expect((await call('GET', `/v1/admin/usage?account=usage@example.com&from=2025-03-02&to=2025-03-02`)).body.data).toHaveLength(3);
    const page = await call('GET', `/v1/admin/usage?account=usage@example.com&${range}&limit=2`);
    expect(page.body.has_more).toBe(true);
    const rest = await call('GET', `/v1/admin/usage?account=usage@example.com&${range}&limit=2&after=${page.body.last_id}`);
    const last = await call('GET', `/v1/admin/usage?account=usage@example.com&${range}&limit=2&after=${rest.body.last_id}`);
    expect(last.body.has_more).toBe(false);
    expect([...page.body.data, ...rest.body.data, ...last.body.data]).toEqual(all.body.data);
    expect((await call('GET', '/v1/admin/usage?account=usage@example.com')).body.data).toEqual([]);

    const ofModel = await call('GET', `/v1/admin/usage?account=usage@example.com&model=model-a&${range}`);
    // Rows come by day, then key id (random here), then model.
    const ofDay2 = [['2025-03-02', one.id, 'model-a', 7], ['2025-03-02', two.id, 'model-a', 0]].sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(ofModel.body.data.map((row: any) => [row.day, row.key, row.model, row.cost_micros])).toEqual([
      ['2025-03-01', one.id, 'model-a', 1_250_000], ...ofDay2,
    ]);
    const ofKeyAndModel = await call('GET', `/v1/admin/usage?key=${one.id}&model=model-b&${range}`);
    expect(ofKeyAndModel.body.data).toEqual([expect.objectContaining({ key: one.id, model: 'model-b', cost: 0.0009, cost_micros: 900 })]);
    expect((await call('GET', `/v1/admin/usage?account=usage@example.com&model=no-such-model&${range}`)).body.data).toEqual([]);

    // Neither account nor key: every key's rows of the range, with their accounts.
    const everyKey = await call('GET', `/v1/admin/usage?${range}&model=model-b`);
    expect(everyKey.body.data).toEqual([expect.objectContaining({ key: one.id, account: one.account, requests: 3 })]);
    const unfiltered = await call('GET', `/v1/admin/usage?${range}`);
    expect(unfiltered.body.data).toEqual(all.body.data);

    expectError(await call('GET', '/v1/admin/usage?model='), 400, 'invalid_value', 'model');
    expectError(await call('GET', `/v1/admin/usage?model=${'m'.repeat(257)}`), 400, 'invalid_value', 'model');
    expectError(await call('GET', '/v1/admin/usage?from=2025-13-01'), 400, 'invalid_value', 'from');
    expectError(await call('GET', '/v1/admin/usage?from=2025-03-02&to=2025-03-01'), 400, 'invalid_value', 'from');
    expectError(await call('GET', '/v1/admin/usage?from=2020-01-01&to=2025-01-01'), 400, 'invalid_value', 'from');
    expectError(await call('GET', '/v1/admin/usage?key=key_missing'), 404, 'key_not_found', 'key');
    expectError(await call('GET', '/v1/admin/usage?account=nobody@example.com'), 404, 'account_not_found', 'account');
  });
});

describe('audit', () => {
  it('reads the log newest first, filtered by actor, action and time, paged', async () => {
    await call('POST', '/v1/admin/accounts', { email: 'audit-a@example.com' });
    await call('POST', '/v1/admin/accounts', { email: 'audit-b@example.com' });
    const created = await call('GET', '/v1/admin/audit?action=account.created&limit=2');
    expect(created.body.data.map((entry: any) => entry.fields.email)).toEqual(['audit-b@example.com', 'audit-a@example.com']);
    expect(created.body.has_more).toBe(true);
    const next = await call('GET', `/v1/admin/audit?action=account.created&limit=2&after=${created.body.last_id}`);
    expect(next.body.data.length).toBeGreaterThan(0);
    expect(next.body.data.every((entry: any) => entry.action === 'account.created')).toBe(true);
    expect(next.body.data.map((entry: any) => entry.id)).not.toContain(created.body.data[1].id);

    const byActor = await call('GET', `/v1/admin/audit?actor=${adminAccountId}&limit=500`);
    expect(byActor.body.data.every((entry: any) => entry.actor === adminAccountId)).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    expect((await call('GET', `/v1/admin/audit?to=${now - 3600}`)).body.data).toEqual([]);
    expect((await call('GET', `/v1/admin/audit?from=${now - 3600}&limit=1`)).body.data).toHaveLength(1);

    expectError(await call('GET', '/v1/admin/audit?from=yesterday'), 400, 'invalid_value', 'from');
    expectError(await call('GET', '/v1/admin/audit?actor='), 400, 'invalid_value', 'actor');
    expectError(await call('GET', '/v1/admin/audit?after=bogus'), 400, 'invalid_value', 'after');
  });
});

describe('rate limits', () => {
  it('limit admin calls like any key’s', async () => {
    const limited = (await call('POST', '/v1/admin/keys', { account: 'root@example.com', admin: true, rpm: 1 })).body;
    const limitedCall = adminClient(gateway.origin, limited.secret);
    expect((await limitedCall('GET', '/v1/admin/audit?limit=1')).status).toBe(200);
    expectError(await limitedCall('GET', '/v1/admin/audit?limit=1'), 429, 'rate_limit_exceeded');
  });
});
