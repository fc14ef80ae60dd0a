// A key's own response-cache setting, kept on its record (munja keys create --cache, the admin
// API): `on` caches the key's deterministic requests on a model whose config does not, with no
// header; `off` bars the key, even from a caching model and with `x-munja-cache: on`; a change
// reaches the next request. On the defaults otherwise.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type ScriptedUpstream, startScriptedUpstream } from '../helpers/scripted-upstream.ts';

const REPLY = '{"id":"chatcmpl-up1","object":"chat.completion","created":1700000000,"model":"up-model","choices":[{"index":0,"message":{"role":"assistant","content":"Zagreb."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}';

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let calls: number;

beforeEach(async () => {
  calls = 0;
  upstream = await startScriptedUpstream();
  upstream.answer = (response: ServerResponse) => {
    calls++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(REPLY);
  };
  gateway = await startGateway({
    models: {
      cached: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], cache: { enabled: true } },
      plain: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] },
    },
  });
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
});

async function ask(key: string, model: string, headers: Record<string, string> = {}): Promise<{ status: number; cache: string | null; content: string }> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, temperature: 0, messages: [{ role: 'user', content: 'Capital of Croatia?' }] }),
  });
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  return { status: response.status, cache: response.headers.get('x-munja-cache'), content: body.choices[0]!.message.content };
}

it('caches an "on" key\'s deterministic requests on a model whose config does not, without a header', async () => {
  const { key } = await gateway.createKey({ cache: 'on' });
  expect(await ask(key, 'plain')).toEqual({ status: 200, cache: 'miss', content: 'Zagreb.' });
  expect(await ask(key, 'plain')).toEqual({ status: 200, cache: 'hit', content: 'Zagreb.' });
  expect(calls).toBe(1);
});

it('bars an "off" key from the cache, on a caching model and with x-munja-cache: on', async () => {
  const { key } = await gateway.createKey({ cache: 'off' });
  const headerSets: Record<string, string>[] = [{}, { 'x-munja-cache': 'on' }, {}];
  for (const headers of headerSets) {
    expect(await ask(key, 'cached', headers)).toEqual({ status: 200, cache: 'bypass', content: 'Zagreb.' });
  }
  expect(calls).toBe(3);
});

it('leaves a key without a setting to the model and the header', async () => {
  const { key } = await gateway.createKey();
  expect((await ask(key, 'plain')).cache).toBeNull();
  expect((await ask(key, 'cached')).cache).toBe('miss');
  expect((await ask(key, 'cached')).cache).toBe('hit');
  expect(calls).toBe(2);
});

it('takes a change of the key\'s setting on its next request', async () => {
  const { key, id } = await gateway.createKey();
  expect((await ask(key, 'cached')).cache).toBe('miss');
  expect((await ask(key, 'cached')).cache).toBe('hit');
  await gateway.app.store.updateKey(id, { cache: 'off' });
  await expect.poll(async () => (await ask(key, 'cached')).cache).toBe('bypass');
});
