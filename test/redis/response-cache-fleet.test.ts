// Two instances on one Redis share one response cache: a reply one stored is a hit on the other,
// JSON and streams, large replies stored deflated; each account is held to its byte cap; purges.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { RedisReplyStore } from '../../src/cache/redis-reply-store.ts';
import { cachedReply } from '../../src/cache/cached-reply.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream } from '../helpers/scripted-upstream.ts';

let redis: TestRedis;
let client: Redis;
let upstream: ScriptedUpstream;
let instances: TestGateway[];
let key: string;
let keyId: string;
let calls = 0;
const LONG_TEXT = 'Zagreb is the capital of Croatia. '.repeat(200);

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  upstream = await startScriptedUpstream();
  const config = { engine: { threads: 1 }, models: { cached: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up' }], cache: { enabled: true } } } };
  instances = [await startGateway(config, { env: { REDIS_URL: redis.url } }), await startGateway(config, { env: { REDIS_URL: redis.url } })];
  ({ key, id: keyId } = await instances[0]!.createKey());
}, 30_000);
beforeEach(() => {
  calls = 0;
});
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await upstream.close();
  client.disconnect();
  await redis.stop();
});

function post(instance: TestGateway, body: Record<string, unknown>) {
  return fetch(`${instance.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'cached', messages: [{ role: 'user', content: 'Tell me about Zagreb.' }], temperature: 0, ...body }),
  });
}

function answerJson(response: ServerResponse): void {
  calls++;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ id: 'chatcmpl-up1', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: LONG_TEXT }, finish_reason: 'stop' }] }));
}

it('serves a JSON reply stored by one instance from the other, deflated when large', async () => {
  upstream.answer = answerJson;
  const [a, b] = instances as [TestGateway, TestGateway];
  const first = await post(a, { seed: 1 });
  expect(first.headers.get('x-munja-cache')).toBe('miss');
  await first.text();
  await expect.poll(async () => (await client.keys('munja:cache:*:entry:*')).length).toBe(1);
  const [entry] = await client.keys('munja:cache:*:entry:*');
  expect(await client.strlen(entry!)).toBeLessThan(LONG_TEXT.length / 4);
  expect(await client.pttl(entry!)).toBeGreaterThan(0);
  const second = await post(b, { seed: 1 });
  expect(second.headers.get('x-munja-cache')).toBe('hit');
  expect((await second.json()).choices[0].message.content).toBe(LONG_TEXT);
  expect(calls).toBe(1);
});

it('serves a stream stored by one instance from the other', async () => {
  upstream.answer = (response: ServerResponse) => {
    calls++;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`${contentEvent('Zag')}${contentEvent('reb')}${FINISH_EVENT}data: [DONE]\n\n`);
  };
  const [a, b] = instances as [TestGateway, TestGateway];
  const first = await (await post(a, { seed: 2, stream: true })).text();
  await expect.poll(async () => (await post(b, { seed: 2, stream: true })).headers.get('x-munja-cache')).toBe('hit');
  const second = await (await post(b, { seed: 2, stream: true })).text();
  const mask = (text: string) => text.replace(/"id":"[^"]+"/g, '"id":"ID"').replace(/"created":\d+/g, '"created":0');
  expect(mask(second)).toBe(mask(first));
  expect(calls).toBe(1);
});

it('holds an account to its byte cap, evicting the entries closest to expiry, and purges an account', async () => {
  const store = new RedisReplyStore(client, 7_000);
  const reply = (text: string) => cachedReply('json', Buffer.from(`{"id":"chatcmpl-1","created":1,"choices":[{"finish_reason":"stop","text":"${text}"}]}`), 'acct_cap', 'key_1');
  // Incompressible text, so that each entry keeps its size.
  const noise = () => randomBytes(3000).toString('base64');
  await store.set('one', reply(noise()), 60_000);
  await store.set('two', reply(noise()), 61_000);
  await store.set('three', reply(noise()), 62_000);
  expect(await store.get('one', 'acct_cap')).toBeUndefined();
  expect(await store.get('three', 'acct_cap')).toBeDefined();
  expect(Number(await client.get('munja:cache:{acct_cap}:bytes'))).toBeLessThanOrEqual(7_000);
  expect(await store.purge({ accountId: 'acct_cap' })).toBe(2);
  expect(await store.get('three', 'acct_cap')).toBeUndefined();
  expect(await client.exists('munja:cache:{acct_cap}:bytes')).toBe(0);
});

it('purges the entries a key filled, and only those, keeping the account\'s byte count', async () => {
  const store = new RedisReplyStore(client, 1_000_000);
  const reply = (keyId: string) => cachedReply('json', Buffer.from('{"id":"chatcmpl-1","created":1,"choices":[{"finish_reason":"stop"}]}'), 'acct_keys', keyId);
  await store.set('a', reply('key_a'), 60_000);
  await store.set('b', reply('key_ab'), 60_000);
  await store.set('c', reply('key_a'), 60_000);
  const sizeOfB = Number(await client.hget('munja:cache:{acct_keys}:sizes', 'b'));
  expect(await store.purge({ keyId: 'key_a', accountId: 'acct_keys' })).toBe(2);
  expect(await store.get('a', 'acct_keys')).toBeUndefined();
  expect(await store.get('c', 'acct_keys')).toBeUndefined();
  expect(await store.get('b', 'acct_keys')).toBeDefined();
  expect(Number(await client.get('munja:cache:{acct_keys}:bytes'))).toBe(sizeOfB);
  expect(await client.zrange('munja:cache:{acct_keys}:expiry', '0', '-1')).toEqual(['b']);
  await store.purge({ accountId: 'acct_keys' });
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function munja(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'src/cli/munja.ts'), ...args], { env: { ...process.env, MUNJA_DATA: mkdtempSync(join(tmpdir(), 'munja-cache-cli-')), ...env }, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

it('munja cache purge drops an account\'s entries, a key\'s, or all', async () => {
  const entries = () => client.keys('munja:cache:*:entry:*');
  expect((await entries()).length).toBeGreaterThan(0);
  const purged = await munja({ REDIS_URL: redis.url }, 'cache', 'purge', '--account', 'test@example.com', '--json');
  expect(purged, purged.stderr).toMatchObject({ code: 0 });
  expect(JSON.parse(purged.stdout).purged).toBeGreaterThan(0);
  expect(await entries()).toEqual([]);
  upstream.answer = answerJson;
  const again = await post(instances[0]!, { seed: 1 });
  expect(again.status, await again.clone().text()).toBe(200);
  expect(again.headers.get('x-munja-cache')).toBe('miss');
  await again.text();
  await expect.poll(async () => (await entries()).length).toBe(1);
  const byKey = await munja({ REDIS_URL: redis.url }, 'cache', 'purge', '--key', keyId);
  expect(byKey.stdout).toContain(`Purged 1 cached reply filled by ${keyId}`);
  expect(await entries()).toEqual([]);
  expect((await munja({ REDIS_URL: redis.url }, 'cache', 'purge', '--key', 'key_nope')).code).toBe(1);
  await (await post(instances[0]!, { seed: 1 })).text();
  await expect.poll(async () => (await entries()).length).toBe(1);
  const all = await munja({ REDIS_URL: redis.url }, 'cache', 'purge', '--all');
  expect(all.stdout).toContain('Purged 1 cached reply');
  expect(await client.keys('munja:cache:*')).toEqual([]);
  const usage = await munja({ REDIS_URL: redis.url }, 'cache', 'purge');
  expect(usage.code).toBe(2);
  const embedded = await munja({}, 'cache', 'purge', '--all');
  expect(embedded.code).toBe(1);
  expect(embedded.stderr).toContain('REDIS_URL');
});
