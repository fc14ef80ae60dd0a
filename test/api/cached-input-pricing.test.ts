// Prompt tokens an upstream read from its cache are priced at the model's `price.cachedInput`: the
// cost recorded in usage (and settled against budgets) reflects the cached count the upstream
// reported — for a JSON completion, a stream, and a Messages answer relayed as it is — and a model
// whose price has no cachedInput prices every prompt token at input. Default settings otherwise.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

const PRICED = { input: 2, output: 8, cachedInput: 0.5 };
// 1,000 prompt tokens of which 600 cached, 50 completion tokens.
const CACHED_COST = 400 * 2 + 600 * 0.5 + 50 * 8;
const UNCACHED_COST = 1_000 * 2 + 50 * 8;
const USAGE = { prompt_tokens: 1_000, completion_tokens: 50, total_tokens: 1_050, prompt_tokens_details: { cached_tokens: 600, audio_tokens: 0 } };
const COMPLETION = JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 1, model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
  usage: USAGE,
});
const MESSAGE = JSON.stringify({
  id: 'msg_1', type: 'message', role: 'assistant', model: 'up-model', content: [{ type: 'text', text: 'Hi' }],
  stop_reason: 'end_turn', stop_sequence: null,
  usage: { input_tokens: 400, cache_creation_input_tokens: 0, cache_read_input_tokens: 600, output_tokens: 50 },
});

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let accounts = 0;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.answer = (response, request) => {
    if (request.url?.endsWith('/messages')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(MESSAGE);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(COMPLETION);
  };
  gateway = await startGateway({
    models: {
      priced: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model', api: ['chat', 'messages'] }], price: PRICED },
      plain: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], price: { input: 2, output: 8 } },
    },
  });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

async function newKey(): Promise<{ key: string; id: string }> {
  return gateway.createKey({ accountEmail: `cached-${++accounts}@example.com` });
}

/** The cost recorded today for the key, once its one request is in the store. */
async function recordedCost(keyId: string): Promise<number> {
  const today = new Date().toISOString().slice(0, 10);
  let cost = -1;
  await vi.waitFor(async () => {
    const rows = await gateway.app.store.usageByDay([keyId], today, today);
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(1);
    cost = rows[0]!.costMicros;
  }, { timeout: 5_000, interval: 50 });
  return cost;
}

function chat(key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody(body),
  });
}

it('prices the cached prompt tokens of a JSON completion at cachedInput', async () => {
  const { key, id } = await newKey();
  const response = await chat(key, { model: 'priced' });
  expect(response.status).toBe(200);
  expect((await response.json()).usage).toEqual(USAGE);
  expect(await recordedCost(id)).toBe(CACHED_COST);
});

it('prices the cached prompt tokens of a stream at cachedInput', async () => {
  const { key, id } = await newKey();
  upstream.answer = stream(contentEvent('Hi'), FINISH_EVENT,
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":${JSON.stringify(USAGE)}}\n\n`, 'data: [DONE]\n\n');
  try {
    const response = await chat(key, { model: 'priced', stream: true });
    expect(response.status).toBe(200);
    await response.text();
    expect(await recordedCost(id)).toBe(CACHED_COST);
  } finally {
    upstream.answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(COMPLETION);
    };
  }
});

it('prices the cache reads of a Messages answer relayed as it is at cachedInput', async () => {
  const { key, id } = await newKey();
  upstream.answer = (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(MESSAGE);
  };
  try {
    const response = await fetch(`${gateway.baseURL}/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'priced', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).usage).toMatchObject({ cache_read_input_tokens: 600 });
    expect(await recordedCost(id)).toBe(CACHED_COST);
  } finally {
    upstream.answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(COMPLETION);
    };
  }
});

it('prices every prompt token at input for a model whose price has no cachedInput', async () => {
  const { key, id } = await newKey();
  expect((await chat(key, { model: 'plain' })).status).toBe(200);
  expect(await recordedCost(id)).toBe(UNCACHED_COST);
});
