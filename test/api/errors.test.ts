// Every error row that applies to one machine: status, error.code and error.param, in the
// {error:{message,type,param,code}} shape, with x-request-id on every response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody, rawRequest } from '../helpers/http.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway({ ...(await import('../helpers/gateway.ts')).FAST_TEST_CONFIG, server: { maxBodyBytes: 64 * 1024, bodyTimeoutMs: 500 } });
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

async function call(path: string, init: RequestInit & { auth?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.auth !== null) headers.set('authorization', init.auth ?? `Bearer ${key}`);
  const response = await fetch(`${gateway.origin}${path}`, { ...init, headers });
  const text = await response.text();
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

function postChat(body: string, headers: Record<string, string> = { 'content-type': 'application/json' }, auth?: string | null) {
  return call('/v1/chat/completions', { method: 'POST', body, headers, auth });
}

function expectError(result: { status: number; body: any }, status: number, code: string, param?: string | null) {
  expect(result.status).toBe(status);
  expect(Object.keys(result.body)).toEqual(['error']);
  expect(typeof result.body.error.message).toBe('string');
  expect(typeof result.body.error.type).toBe('string');
  expect(result.body.error.code).toBe(code);
  if (param !== undefined) expect(result.body.error.param).toBe(param);
}

describe('request body rules (SPEC §4.1)', () => {
  const cases: Array<[string, string, string, string | null]> = [
    ['bad JSON', '{"model":', 'invalid_json', null],
    ['not an object', '[]', 'invalid_body', null],
    ['model absent', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), 'missing_required_parameter', 'model'],
    ['messages absent', JSON.stringify({ model: 'fast' }), 'missing_required_parameter', 'messages'],
    ['messages empty', chatBody({ messages: [] }), 'empty_messages', 'messages'],
    ['bad role', chatBody({ messages: [{ role: 'robot', content: 'x' }] }), 'invalid_role', 'messages[0].role'],
    ['non-string content', chatBody({ messages: [{ role: 'user', content: 42 }] }), 'invalid_content', 'messages[0].content'],
    ['temperature too high', chatBody({ temperature: 2.5 }), 'invalid_value', 'temperature'],
    ['temperature infinite', '{"model":"fast","messages":[{"role":"user","content":"x"}],"temperature":1e400}', 'invalid_value', 'temperature'],
    ['top_p too high', chatBody({ top_p: 1.5 }), 'invalid_value', 'top_p'],
    ['penalty too low', chatBody({ presence_penalty: -3 }), 'invalid_value', 'presence_penalty'],
    ['max_tokens zero', chatBody({ max_tokens: 0 }), 'invalid_value', 'max_tokens'],
    ['max_tokens fraction', chatBody({ max_tokens: 1.5 }), 'invalid_type', 'max_tokens'],
    ['max_tokens above the model limit', chatBody({ model: 'pro', max_tokens: 4096 }), 'invalid_value', 'max_tokens'],
    ['n too large', chatBody({ n: 129 }), 'invalid_value', 'n'],
    ['five stop strings', chatBody({ stop: ['a', 'b', 'c', 'd', 'e'] }), 'invalid_value', 'stop'],
    ['seed not an integer', chatBody({ seed: 1.5 }), 'invalid_type', 'seed'],
    ['stream not a boolean', chatBody({ stream: 'yes' }), 'invalid_type', 'stream'],
    ['unknown stream option', chatBody({ stream_options: { foo: true } }), 'unknown_parameter', 'stream_options.foo'],
    ['unknown field', chatBody({ best_of: 3 }), 'unknown_parameter', 'best_of'],
    ['duplicate key', '{"model":"fast","model":"pro","messages":[{"role":"user","content":"x"}]}', 'duplicate_key', 'model'],
    ['__proto__', '{"model":"fast","messages":[{"role":"user","content":"x"}],"metadata":{"__proto__":{"x":"1"}}}', 'forbidden_key', 'metadata.__proto__'],
    ['deep nesting', `{"model":"fast","messages":${'['.repeat(20_000)}${']'.repeat(20_000)}}`, 'nesting_too_deep', null],
  ];
  it.each(cases)('%s → 400', async (_name, body, code, param) => {
    expectError(await postChat(body), 400, code, param);
  });

  it('rejects invalid UTF-8', async () => {
    const body = Buffer.concat([Buffer.from('{"model":"fast","messages":[{"role":"user","content":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]);
    expectError(await postChat(body as unknown as string), 400, 'invalid_encoding');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''])(
    'rejects Content-Type "%s"', async (contentType) => {
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      expectError(await postChat(chatBody(), headers), 400, 'invalid_content_type');
    },
  );

  it('accepts application/json; charset=utf-8', async () => {
    expect((await postChat(chatBody(), { 'content-type': 'application/json; charset=UTF-8' })).status).toBe(200);
  });

  it('answers 413 to an oversized declared body before reading it, and closes', async () => {
    const response = await rawRequest(gateway.port, [
      'POST /v1/chat/completions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`,
      'Content-Type: application/json', `Content-Length: ${10 * 1024 * 1024}`, '', '{"model":',
    ].join('\r\n'));
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.code).toBe('request_too_large');
  });

  it('answers 413 to an oversized chunked body', async () => {
    const chunk = 'x'.repeat(16 * 1024);
    const chunks = Array.from({ length: 6 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const response = await rawRequest(gateway.port, [
      'POST /v1/chat/completions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`,
      'Content-Type: application/json', 'Transfer-Encoding: chunked', '', chunks,
    ].join('\r\n'));
    expect(response.status).toBe(413);
  });

  it('refuses a repeated Content-Length with 400 and closes', async () => {
    const body = chatBody();
    const response = await rawRequest(gateway.port, [
      'POST /v1/chat/completions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json',
      `Content-Length: ${body.length}`, 'Content-Length: 5', '', body,
    ].join('\r\n'));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('malformed_request');
    expect(response.headers.connection).toBe('close');
  });

  it('answers 408 to a body that stops arriving, and closes', async () => {
    const response = await rawRequest(gateway.port, [
      'POST /v1/chat/completions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`,
      'Content-Type: application/json', 'Content-Length: 1000', '', '{"model":"fast",',
    ].join('\r\n'), 1500);
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body).error.code).toBe('request_timeout');
    expect(response.headers.connection).toBe('close');
  });

  it('keeps serving after every bad input above', async () => {
    expect((await postChat(chatBody())).status).toBe(200);
  });
});

describe('authentication (SPEC §5)', () => {
  it.each([
    ['missing', null],
    ['not bearer', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['malformed', 'Bearer sk_munja_short'],
    ['wrong prefix', 'Bearer sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
  ])('%s key → 401 invalid_api_key', async (_name, auth) => {
    const result = await postChat(chatBody(), undefined, auth);
    expectError(result, 401, 'invalid_api_key');
  });

  it('a well-formed key with a broken checksum → 401', async () => {
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    expectError(await postChat(chatBody(), undefined, `Bearer ${key.slice(0, -1)}${last}`), 401, 'invalid_api_key');
  });

  it('a revoked key → 401, a suspended account → 403', async () => {
    const revoked = await gateway.createKey({ accountEmail: 'revoked@example.com' });
    await gateway.app.store.revokeKey(revoked.id);
    await expect.poll(async () => (await postChat(chatBody(), undefined, `Bearer ${revoked.key}`)).status, { timeout: 1_100 }).toBe(401);
    expectError(await postChat(chatBody(), undefined, `Bearer ${revoked.key}`), 401, 'invalid_api_key');

    const suspended = await gateway.createKey({ accountEmail: 'suspended@example.com' });
    await gateway.app.store.setAccountStatus('suspended@example.com', 'suspended');
    expectError(await postChat(chatBody(), undefined, `Bearer ${suspended.key}`), 403, 'account_suspended');
    expectError(await call('/v1/models', { auth: `Bearer ${suspended.key}` }), 403, 'account_suspended');
  });

  it('a model outside the key scope → 403, and /v1/models shows only the scope', async () => {
    const scoped = await gateway.createKey({ accountEmail: 'scoped@example.com', models: ['fast', 'hrllm'] });
    expectError(await postChat(chatBody({ model: 'pro' }), undefined, `Bearer ${scoped.key}`), 403, 'model_not_allowed', 'model');
    const list = await call('/v1/models', { auth: `Bearer ${scoped.key}` });
    expect(list.body.data.map((model: any) => model.id)).toEqual(['fast', 'hrllm']);
  });

  it('GET /v1/models needs a key', async () => {
    expectError(await call('/v1/models', { auth: null }), 401, 'invalid_api_key');
  });
});

describe('models and routes', () => {
  it('unknown model → 404 model_not_found', async () => {
    expectError(await postChat(chatBody({ model: 'gpt-9' })), 404, 'model_not_found', 'model');
    expectError(await call('/v1/models/gpt-9'), 404, 'model_not_found');
  });

  it.each(['/chat/completions', '/v1/v1/chat/completions', '/v1/chat/completions/', '//v1/chat/completions', '/V1/chat/completions', '/v1/chat%2Fcompletions'])(
    'POST %s → 404 unknown_route', async (path) => {
      expectError(await call(path, { method: 'POST', body: chatBody(), headers: { 'content-type': 'application/json' } }), 404, 'unknown_route');
    },
  );

  it.each([['/v1/v1/chat/completions', '/v1/chat/completions'], ['/chat/completions', '/v1/chat/completions'], ['/models', '/v1/models']])(
    '%s names the path meant (%s): the base URL ends in /v1, once', async (path, meant) => {
      const result = await call(path, { method: 'POST', body: chatBody(), headers: { 'content-type': 'application/json' } });
      expectError(result, 404, 'unknown_route');
      expect(result.body.error.message).toContain(`Did you mean ${meant}?`);
    },
  );

  it('wrong method → 405 with Allow', async () => {
    const result = await call('/v1/chat/completions', { method: 'GET' });
    expectError(result, 405, 'method_not_allowed');
    expect(result.headers.get('allow')).toBe('POST');
    expectError(await call('/v1/models', { method: 'DELETE' }), 405, 'method_not_allowed');
  });

  it('matches the method as sent, and the path without its query string', async () => {
    const body = chatBody();
    const post = (requestLine: string) => rawRequest(gateway.port, [
      requestLine, 'Host: x', `Authorization: Bearer ${key}`, 'Content-Type: application/json', `Content-Length: ${body.length}`, 'Connection: close', '', body,
    ].join('\r\n'));
    const lowercase = await post('post /v1/chat/completions HTTP/1.1');
    expect(lowercase.status).toBe(405);
    expect(JSON.parse(lowercase.body).error.message).toBe('/v1/chat/completions does not accept post.');
    expect((await post('POST /v1/chat/completions?stream=false HTTP/1.1')).status).toBe(200);
  });

  it('/health and /readyz answer without a key; HEAD has no body', async () => {
    expect((await call('/health', { auth: null })).body).toEqual({ status: 'ok' });
    expect((await call('/readyz', { auth: null })).status).toBe(200);
    const head = await fetch(`${gateway.origin}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('rate limits', () => {
  it('429 rate_limit_exceeded with Retry-After and x-ratelimit-* headers', async () => {
    const limited = await gateway.createKey({ accountEmail: 'rpm@example.com', rpm: 2, tpm: 100_000 });
    const auth = `Bearer ${limited.key}`;
    const first = await postChat(chatBody(), undefined, auth);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
    expect(first.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+(ms|s)$/);
    expect((await postChat(chatBody(), undefined, auth)).status).toBe(200);
    const denied = await postChat(chatBody(), undefined, auth);
    expectError(denied, 429, 'rate_limit_exceeded');
    const retryAfter = Number(denied.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(Number(denied.headers.get('retry-after-ms'))).toBeGreaterThan(0);
    expect(denied.headers.get('x-ratelimit-remaining-requests')).toBe('0');
  });

  it('a request larger than the token limit → 429 that says not to retry', async () => {
    const small = await gateway.createKey({ accountEmail: 'tpm@example.com', tpm: 50 });
    const denied = await postChat(chatBody({ max_tokens: 100 }), undefined, `Bearer ${small.key}`);
    expectError(denied, 429, 'rate_limit_exceeded');
    expect(denied.headers.get('x-should-retry')).toBe('false');
  });
});
