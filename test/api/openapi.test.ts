// GET /openapi.json, and every operation it documents asked at least once for a success and (where
// a request can fail) for an error, each answer checked against the document: status, content type,
// body or every stream event.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer, templateOf } from '../helpers/openapi-answers.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let key: string;
let adminKey: string;
let otherAccount: string;
const asked = new Set<string>();

beforeAll(async () => {
  gateway = await startGateway();
  key = (await gateway.createKey()).key;
  adminKey = (await gateway.createKey({ accountEmail: 'root@example.com', admin: true })).key;
  await gateway.createKey({ accountEmail: 'other@example.com' });
  otherAccount = (await gateway.app.store.findAccountByEmail('other@example.com'))!.id;
});

afterAll(async () => {
  await gateway.close();
});

interface Ask {
  readonly key?: string | null;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** Sends the request, checks the answer against the document, and returns its status and body. */
async function ask(method: string, path: string, options: Ask = {}): Promise<{ status: number; text: string }> {
  const credential = options.key === undefined ? key : options.key;
  const response = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: {
      ...(credential === null ? {} : { authorization: `Bearer ${credential}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  const pathOnly = path.split('?')[0]!;
  const verdict = checkAnswer({
    method, path: pathOnly, status: response.status, contentType: response.headers.get('content-type') ?? '', body: text, header: (name) => response.headers.get(name),
  });
  expect(verdict, `${method} ${path}`).toEqual({ kind: 'checked' });
  asked.add(`${method.toLowerCase()} ${templateOf(pathOnly)} ${response.status < 400 ? 'success' : 'error'}`);
  return { status: response.status, text };
}

const chat = { model: 'fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 };
const message = { model: 'fast', max_tokens: 8, messages: [{ role: 'user', content: 'Hello' }] };
const anthropic = { 'anthropic-version': '2023-06-01' };

describe('GET /openapi.json', () => {
  it('answers without a key, the same bytes every time, a valid OpenAPI 3.1 document', async () => {
    const first = await ask('GET', '/openapi.json', { key: null });
    expect(first.status).toBe(200);
    expect((await ask('GET', '/openapi.json', { key: null })).text).toBe(first.text);
    const validator = new Validator();
    expect((await validator.validate(JSON.parse(first.text))).valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});

describe('every documented operation, checked against the document', () => {
  it('chat completions, JSON and streamed', async () => {
    expect((await ask('POST', '/v1/chat/completions', { body: chat })).status).toBe(200);
    const streamed = await ask('POST', '/v1/chat/completions', { body: { ...chat, stream: true, stream_options: { include_usage: true } } });
    expect(streamed.text).toMatch(/data: \[DONE\]\n\n$/);
    expect((await ask('POST', '/v1/chat/completions', { body: { ...chat, messages: [] } })).status).toBe(400);
    expect((await ask('POST', '/v1/chat/completions', { body: chat, key: 'sk_munja_nope' })).status).toBe(401);
    expect((await ask('POST', '/v1/chat/completions', { body: { ...chat, model: 'nope' } })).status).toBe(404);
  });

  it('models, in both shapes', async () => {
    expect((await ask('GET', '/v1/models')).status).toBe(200);
    expect((await ask('GET', '/v1/models', { headers: anthropic })).status).toBe(200);
    expect((await ask('GET', '/v1/models', { key: null })).status).toBe(401);
    expect((await ask('GET', '/v1/models/fast')).status).toBe(200);
    expect((await ask('GET', '/v1/models/fast', { headers: anthropic })).status).toBe(200);
    expect((await ask('GET', '/v1/models/nope')).status).toBe(404);
    expect((await ask('GET', '/v1/models/nope', { headers: anthropic })).status).toBe(404);
  });

  it('responses: create, stream, read, list input items, delete', async () => {
    const created = await ask('POST', '/v1/responses', { body: { model: 'fast', input: 'Hello', max_output_tokens: 8 } });
    expect(created.status).toBe(200);
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect((await ask('POST', '/v1/responses', { body: { model: 'fast', input: 'Hello', stream: true, store: false } })).text).toContain('event: response.completed');
    expect((await ask('POST', '/v1/responses', { body: { model: 'fast' } })).status).toBe(400);
    expect((await ask('GET', `/v1/responses/${id}`)).status).toBe(200);
    expect((await ask('GET', `/v1/responses/${id}/input_items?order=asc&limit=5`)).status).toBe(200);
    expect((await ask('GET', `/v1/responses/${id}/input_items?limit=0`)).status).toBe(400);
    expect((await ask('DELETE', `/v1/responses/${id}`)).status).toBe(200);
    expect((await ask('GET', `/v1/responses/${id}`)).status).toBe(404);
    expect((await ask('GET', `/v1/responses/${id}/input_items`)).status).toBe(404);
    expect((await ask('DELETE', `/v1/responses/${id}`)).status).toBe(404);
  });

  it('messages and count_tokens, with either credential header', async () => {
    expect((await ask('POST', '/v1/messages', { body: message, key: null, headers: { 'x-api-key': key, ...anthropic } })).status).toBe(200);
    expect((await ask('POST', '/v1/messages', { body: { ...message, stream: true } })).text).toContain('event: message_stop');
    expect((await ask('POST', '/v1/messages', { body: { ...message, max_tokens: undefined } })).status).toBe(400);
    expect((await ask('POST', '/v1/messages', { body: message, key: null })).status).toBe(401);
    expect((await ask('POST', '/v1/messages/count_tokens', { body: { model: 'fast', messages: message.messages } })).status).toBe(200);
    expect((await ask('POST', '/v1/messages/count_tokens', { body: { model: 'nope', messages: message.messages } })).status).toBe(404);
  });

  it('/mcp, its preflight, and the service endpoints', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } };
    const accept = { accept: 'application/json, text/event-stream' };
    expect((await ask('POST', '/mcp', { body: initialize, headers: accept })).status).toBe(200);
    expect((await ask('POST', '/mcp', { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: accept })).status).toBe(202);
    expect((await ask('POST', '/mcp', { body: initialize, headers: { accept: 'text/html' } })).status).toBe(406);
    expect((await ask('POST', '/mcp', { body: initialize, key: null, headers: accept })).status).toBe(401);
    expect((await ask('OPTIONS', '/mcp', { key: null })).status).toBe(200);
    expect((await ask('GET', '/health', { key: null })).status).toBe(200);
    expect((await ask('GET', '/readyz', { key: null })).status).toBe(200);
  });

  it('the admin API: accounts', async () => {
    const admin = { key: adminKey };
    expect((await ask('POST', '/v1/admin/accounts', { ...admin, body: { email: 'new@example.com' } })).status).toBe(200);
    expect((await ask('POST', '/v1/admin/accounts', { ...admin, body: { email: 'new@example.com', extra: 1 } })).status).toBe(400);
    expect((await ask('GET', '/v1/admin/accounts?limit=2', admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/accounts')).status).toBe(403);
    expect((await ask('GET', `/v1/admin/accounts/${otherAccount}`, admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/accounts/acct_nope', admin)).status).toBe(404);
    expect((await ask('PATCH', `/v1/admin/accounts/${otherAccount}`, { ...admin, body: { status: 'suspended' } })).status).toBe(200);
    expect((await ask('PATCH', `/v1/admin/accounts/${otherAccount}`, { ...admin, body: { status: 'gone' } })).status).toBe(400);
  });

  it('the admin API: keys, usage and audit', async () => {
    const admin = { key: adminKey };
    const created = await ask('POST', '/v1/admin/keys', { ...admin, body: { account: 'new@example.com', name: 'k', rpm: 60 } });
    expect(created.status).toBe(200);
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect((await ask('POST', '/v1/admin/keys', { ...admin, body: { account: 'nobody@example.com' } })).status).toBe(404);
    expect((await ask('GET', '/v1/admin/keys?account=new@example.com', admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/keys', admin)).status).toBe(400);
    expect((await ask('GET', `/v1/admin/keys/${id}`, admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/keys/key_nope', admin)).status).toBe(404);
    expect((await ask('PATCH', `/v1/admin/keys/${id}`, { ...admin, body: { name: 'renamed', models: ['fast'] } })).status).toBe(200);
    expect((await ask('PATCH', `/v1/admin/keys/${id}`, { ...admin, body: {} })).status).toBe(400);
    expect((await ask('POST', `/v1/admin/keys/${id}/rotate`, { ...admin, body: { grace_seconds: 0 } })).status).toBe(200);
    expect((await ask('POST', '/v1/admin/keys/key_nope/rotate', { ...admin, body: {} })).status).toBe(404);
    expect((await ask('DELETE', `/v1/admin/keys/${id}`, admin)).status).toBe(200);
    expect((await ask('DELETE', '/v1/admin/keys/key_nope', admin)).status).toBe(404);
    expect((await ask('GET', '/v1/admin/usage?account=test@example.com', admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/usage?from=yesterday', admin)).status).toBe(400);
    expect((await ask('GET', '/v1/admin/usage?model=fast', admin)).status).toBe(200);
    expect((await ask('DELETE', '/v1/admin/cache?account=new@example.com', admin)).status).toBe(200);
    expect((await ask('DELETE', '/v1/admin/cache', admin)).status).toBe(400);
    expect((await ask('PATCH', `/v1/admin/accounts/${otherAccount}`, { ...admin, body: { rpm: 100, priority: 'low', budget: { amount: 5, period: 'month' } } })).status).toBe(200);
    expect((await ask('GET', '/v1/admin/audit?limit=5', admin)).status).toBe(200);
    expect((await ask('GET', '/v1/admin/audit?from=soon', admin)).status).toBe(400);
  });

  it('asked every operation of the document for a success, and for an error where a request can fail', async () => {
    const document = JSON.parse((await ask('GET', '/openapi.json', { key: null })).text) as { paths: Record<string, Record<string, { security: unknown[] }>> };
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        if (!asked.has(`${method} ${path} success`)) missing.push(`${method} ${path} success`);
        // An operation without a key and without a body (the probes, the preflight, this document) has no error to ask for.
        if (operation.security.length > 0 && !asked.has(`${method} ${path} error`)) missing.push(`${method} ${path} error`);
      }
    }
    expect(missing).toEqual([]);
  });
});
