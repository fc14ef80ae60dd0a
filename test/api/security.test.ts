// The security promises of SECURITY.md over real HTTP (reliability.md AK-01…AK-05, AK-21, AK-22):
// a key — valid, revoked, unknown, with a broken checksum or malformed — never appears in a log
// line (every logger at trace level) or in any response, wherever the client put it; an unknown and
// a revoked key are indistinguishable; /v1 answers no CORS; the dashboard's API answers carry the
// security headers.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, generateApiKey } from '../../src/auth/api-key.ts';
import { type RunningApp, startApp } from '../../src/app.ts';
import { createApiKey } from '../../src/auth/create-key.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { FAST_TEST_CONFIG } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-security-'));
const logStream = new PassThrough();
let logged = '';
logStream.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
let app: RunningApp;
let origin: string;
const keys = { valid: '', revoked: '', unknown: '', badChecksum: '', malformed: '' };

/** The secret part of a key: what must never show (a masked form keeps only the last four). */
const secretOf = (key: string) => key.slice(API_KEY_PREFIX.length, -4);

beforeAll(async () => {
  const settings = loadConfig(
    { MUNJA_DATA: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'trace', MUNJA_METRICS_PORT: 'off', MUNJA_INSECURE_COOKIES: '1' },
    FAST_TEST_CONFIG,
  );
  app = await startApp(settings, createLogger('trace', logStream));
  origin = `http://127.0.0.1:${app.port}`;
  const create = () => createApiKey(app.store, { accountEmail: 'owner@example.com', createAccount: true });
  keys.valid = (await create()).key;
  const revoked = await create();
  await app.store.revokeKey(revoked.record.id);
  keys.revoked = revoked.key;
  keys.unknown = generateApiKey();
  const last = keys.valid.at(-1)!;
  keys.badChecksum = keys.valid.slice(0, -1) + (last === 'A' ? 'B' : 'A');
  keys.malformed = `${generateApiKey()}Zz`;
});
afterAll(async () => {
  await app.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer { status: number; headers: Headers; text: string }

async function ask(path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(origin + path, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const chat = (authorization: string, body = chatBody(), extra: Record<string, string> = {}) =>
  ask('/v1/chat/completions', { method: 'POST', headers: { authorization, 'content-type': 'application/json', ...extra }, body });

/** Every place a client might put a key, right or wrong. */
async function everyPlace(key: string): Promise<Answer[]> {
  const valid = `Bearer ${keys.valid}`;
  const mcp = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const dashboard = new DashboardClient(origin);
  return [
    await chat(`Bearer ${key}`),
    await chat(`Bearer ${key}`, chatBody({ stream: true })),
    await chat(`bearer  ${key} `),
    await chat(`Basic ${key}`),
    await chat(key),
    await chat('', chatBody(), { 'x-api-key': key, 'api-key': key }),
    await chat(valid, chatBody({ model: key })),
    await chat(valid, chatBody({ model: 'fast', user: key })),
    await ask(`/v1/models?api_key=${key}`),
    await ask('/v1/models', { headers: { authorization: `Bearer ${key}` } }),
    await ask(`/v1/models/${key}`, { headers: { authorization: valid } }),
    await ask(`/v1/${key}`, { headers: { authorization: valid } }),
    await ask('/mcp', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: mcp }),
    await ask('/dashboard/api/me', { headers: { cookie: `munja_session=${key}`, authorization: `Bearer ${key}` } }),
    await dashboard.call('POST', '/dashboard/api/sign-in', { email: 'owner@example.com', password: key }).then((answer) => ({ ...answer, text: JSON.stringify(answer.body) })),
    await ask('/dashboard/api/keys', { method: 'POST', headers: { 'x-csrf-token': key, cookie: `munja_session=${key}` }, body: '{}' }),
  ];
}

function expectNoSecret(answers: Answer[], key: string): void {
  for (const answer of answers) {
    const seen = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\n') + answer.text;
    expect(seen).not.toContain(secretOf(key));
  }
}

describe('keys never leak', () => {
  it.each(Object.keys(keys) as Array<keyof typeof keys>)('a %s key is never echoed in a response, wherever it was put', async (kind) => {
    const answers = await everyPlace(keys[kind]);
    // A key counts only as a Bearer credential: the scheme in any case, never Basic, bare, another
    // header or the query string. A valid one works on /v1 and /mcp, and never on the dashboard.
    const ok = kind === 'valid' ? 200 : 401;
    expect(answers.map((answer) => answer.status)).toEqual([ok, ok, ok, 401, 401, 401, 404, 200, 401, ok, 404, 404, ok, 401, 401, 401]);
    expect(JSON.parse(answers[6]!.text).error.message).toContain(`${API_KEY_PREFIX}…`);
    expectNoSecret(answers, keys[kind]);
  });

  it('no log line holds any of the keys', async () => {
    let lastId = '';
    for (const key of Object.values(keys)) lastId = (await everyPlace(key)).at(-1)!.headers.get('x-request-id')!;
    await expect.poll(() => logged).toContain(`"reqId":"${lastId}"`); // lines are written in order: all are in
    expect(logged).toContain('"msg":"request"'); // the capture works
    expect(logged).toContain(`"model":"${API_KEY_PREFIX}…`);
    for (const key of Object.values(keys)) expect(logged).not.toContain(secretOf(key));
  });

  it('the store keeps no key, only its digest', async () => {
    const files = ['munja.db', 'munja.db-wal'].map((name) => join(dir, name)).filter((file) => existsSync(file));
    const bytes = files.map((file) => readFileSync(file).toString('latin1')).join('');
    expect(bytes).toContain('owner@example.com'); // the dump is readable
    for (const key of [keys.valid, keys.revoked]) expect(bytes).not.toContain(secretOf(key));
  });
});

describe('a wrong key', () => {
  const comparable = (answer: Answer) => ({
    status: answer.status,
    body: answer.text,
    headers: [...answer.headers].filter(([name]) => name !== 'x-request-id' && name !== 'date'),
  });

  it('unknown or revoked: the same answer; with a broken checksum or malformed: the same but for the message', async () => {
    const withoutMessage = (answer: ReturnType<typeof comparable>) => {
      const { error } = JSON.parse(answer.body);
      const headers = answer.headers.filter(([name]) => name !== 'content-length');
      return { status: answer.status, headers, body: { ...error, message: undefined } };
    };
    for (const call of [
      (key: string) => chat(`Bearer ${key}`),
      (key: string) => ask('/v1/models', { headers: { authorization: `Bearer ${key}` } }),
    ]) {
      const answers = [];
      for (const kind of ['unknown', 'revoked', 'badChecksum', 'malformed', 'revoked'] as const) answers.push(comparable(await call(keys[kind])));
      expect(answers[0]!.status).toBe(401);
      expect(JSON.parse(answers[0]!.body).error.code).toBe('invalid_api_key');
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[4]).toEqual(answers[0]);
      for (const answer of answers) expect(withoutMessage(answer)).toEqual(withoutMessage(answers[0]!));
    }
  });
});

describe('no CORS on /v1', () => {
  it('answers preflights, errors and successes from a browser origin without Access-Control-* headers', async () => {
    const from = { origin: 'https://evil.example' };
    const answers = [
      await ask('/v1/chat/completions', { method: 'OPTIONS', headers: { ...from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } }),
      await ask('/v1/models', { method: 'OPTIONS', headers: { ...from, 'access-control-request-method': 'GET' } }),
      await chat(`Bearer ${keys.valid}`, chatBody(), from),
      await chat(`Bearer ${keys.valid}`, chatBody({ stream: true }), from),
      await chat(`Bearer ${keys.unknown}`, chatBody(), from),
      await ask('/v1/models', { headers: { ...from, authorization: `Bearer ${keys.valid}` } }),
      await ask('/v1/nope', { headers: from }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([405, 405, 200, 200, 401, 200, 404]);
    for (const answer of answers) {
      expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});

describe('dashboard API headers', () => {
  it('every answer of the dashboard API, errors included, carries the security headers and is not cached', async () => {
    const client = new DashboardClient(origin);
    const answers = [
      await client.call('GET', '/dashboard/api/me'),
      await client.call('POST', '/dashboard/api/sign-in', { email: 'nobody@example.com', password: 'not the password' }),
      await client.call('POST', '/dashboard/api/sign-up', { email: 'headers@example.com', password: 'a long enough password' }),
      await client.call('POST', '/dashboard/api/keys', { name: 'k' }),
      await client.call('GET', '/dashboard/api/keys'),
      await client.call('POST', '/dashboard/api/keys', { name: 'k' }, { 'x-csrf-token': 'forged' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 200, 200, 200, 403]);
    expect(answers[3]!.body.key).toMatch(/^sk_munja_/); // shown once, at creation
    expect(JSON.stringify(answers[4]!.body)).not.toContain(secretOf(answers[3]!.body.key));
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('referrer-policy')).toBe('same-origin');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
