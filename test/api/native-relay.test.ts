// A Responses or Messages request to a model whose upstream speaks that API is relayed as the client
// sent it, and the upstream's answer comes back as it sent it (only `model` is the public id), billed
// from its own counts; an upstream that does not speak the API gets the chat translation. With the
// official SDKs. A Responses request goes native only when it neither stores nor continues a stored
// conversation (`store: false`, no previous_response_id): the conversation lives in this service.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { messagesEvents, responsesEvents, sse } from '../helpers/native-events.ts';
import { type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

const ALL: Array<'chat' | 'responses' | 'messages'> = ['chat', 'responses', 'messages'];

let mock: MockUpstream;
let failing: MockUpstream;
let scripted: ScriptedUpstream;
let gateway: TestGateway;
let accounts = 0;

beforeAll(async () => {
  mock = await startMockUpstream();
  failing = await startMockUpstream({ defaultBehavior: { kind: 'status', status: 503 } });
  scripted = await startScriptedUpstream();
  const config: ConfigFile = {
    ...FAST_TEST_CONFIG,
    // A cut stream counts against its upstream: the breaker must not eject the scripted one mid-suite.
    upstream: { breaker: { consecutiveFailures: 1_000 }, retry: { backoffMs: 0 } },
    models: {
      ...FAST_TEST_CONFIG.models,
      native: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model', api: ALL }] },
      chatonly: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] },
      scripted: { upstreams: [{ baseUrl: scripted.baseUrl, model: 'up-model', api: ALL }] },
      failover: { upstreams: [{ baseUrl: failing.baseUrl, model: 'down', api: ALL, weight: 1_000_000 }, { baseUrl: mock.baseUrl, model: 'mock-model', api: ALL }] },
      tochat: { upstreams: [{ baseUrl: failing.baseUrl, model: 'down', api: ALL, weight: 1_000_000 }, { baseUrl: mock.baseUrl, model: 'mock-model' }] },
    },
  };
  gateway = await startGateway(config);
});

afterAll(async () => {
  await gateway.close();
  await Promise.all([mock.close(), failing.close(), scripted.close()]);
});

/** A key of its own account, so that its usage is this test's alone. */
async function newKey(): Promise<{ key: string; id: string }> {
  return gateway.createKey({ accountEmail: `native-${++accounts}@example.com` });
}

/** The usage recorded today for a key, once it is there (the recorder writes once a second). */
async function usageOf(keyId: string): Promise<{ requests: number; promptTokens: number; completionTokens: number }> {
  const today = new Date().toISOString().slice(0, 10);
  let found: { requests: number; promptTokens: number; completionTokens: number } | undefined;
  await vi.waitFor(async () => {
    [found] = await gateway.app.store.usageByDay([keyId], today, today);
    expect(found).toBeDefined();
  }, { timeout: 5_000, interval: 50 });
  return found!;
}

function post(path: string, key: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });
}

/** The SSE events of a body: name and parsed data. */
function eventsOf(text: string): Array<{ name: string | null; data: any }> {
  expect(text.endsWith('\n\n')).toBe(true);
  return text.slice(0, -2).split('\n\n').map((block) => ({ name: /^event: (.*)$/m.exec(block)?.[1] ?? null, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
}

/** What the mock upstream saw last. */
function lastSeen() {
  return mock.requests.at(-1)!;
}

describe('an upstream that speaks the Responses API', () => {
  it('gets the client\'s body as it was sent but for the model, and its JSON answer goes back as it is (openai SDK)', async () => {
    const { key, id } = await newKey();
    const text = '{ "model" :"native", "input": "Say hi",\n  "reasoning": {"effort": "low"}, "metadata": {"model": "native"}, "store": false }';
    const response = await post('/v1/responses', key, text);
    expect(response.status).toBe(200);
    expect(lastSeen().path).toBe('/v1/responses');
    expect(lastSeen().rawBody).toBe(text.replace('"model" :"native"', '"model" :"mock-model"'));
    const answer = await response.json();
    expect(answer).toMatchObject({ id: 'resp_mock1', object: 'response', model: 'native', status: 'completed' });
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 10, completionTokens: 5 });

    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const again = await client.responses.create({ model: 'native', input: 'Say hi', store: false });
    expect(again.model).toBe('native');
    expect(again.output_text).toBe('Hello from the mock upstream.');
  });

  it('streams the upstream\'s events as they are, the model rewritten, billed from its usage (openai SDK)', async () => {
    const { key, id } = await newKey();
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const events = client.responses.stream({ model: 'native', input: 'mock:{"kind":"stream","chunks":4,"promptTokens":21}', store: false });
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    const final = await events.finalResponse();
    expect(lastSeen().path).toBe('/v1/responses');
    expect(types).toEqual(expect.arrayContaining(['response.created', 'response.output_text.delta', 'response.completed']));
    expect(types.filter((type) => type === 'response.output_text.delta')).toHaveLength(4);
    expect(final).toMatchObject({ model: 'native', status: 'completed', usage: { input_tokens: 21, output_tokens: 4 } });
    expect(final.output_text).toBe('w1 w2 w3 w4 ');
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 21, completionTokens: 4 });
  });
});

describe('an upstream that speaks the Messages API', () => {
  it('gets the client\'s body, its key as x-api-key and a bearer token, and the Anthropic headers; its JSON comes back (Anthropic SDK)', async () => {
    const { key, id } = await newKey();
    const client = new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0, defaultHeaders: { 'anthropic-beta': 'tools-2024-04-04' } });
    const message = await client.messages.create({ model: 'native', max_tokens: 50, messages: [{ role: 'user', content: 'Say hi' }] });
    expect(message).toMatchObject({ id: 'msg_mock1', type: 'message', model: 'native', content: [{ type: 'text', text: 'Hello from the mock upstream.' }] });
    const seen = lastSeen();
    expect(seen.path).toBe('/v1/messages');
    expect(seen.headers).toMatchObject({ 'anthropic-beta': 'tools-2024-04-04' });
    expect(seen.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(JSON.parse(seen.rawBody)).toEqual({ model: 'mock-model', max_tokens: 50, messages: [{ role: 'user', content: 'Say hi' }] });
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 10, completionTokens: 5 });
  });

  it('passes on the anthropic-version the client sent, and 2023-06-01 when it sent none', async () => {
    const { key } = await newKey();
    const body = JSON.stringify({ model: 'native', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    expect((await post('/v1/messages', key, body, { 'anthropic-version': '2024-01-01' })).status).toBe(200);
    expect(lastSeen().headers['anthropic-version']).toBe('2024-01-01');
    expect((await post('/v1/messages', key, body)).status).toBe(200);
    expect(lastSeen().headers['anthropic-version']).toBe('2023-06-01');
    expect(lastSeen().headers['anthropic-beta']).toBeUndefined();
  });

  it('streams the upstream\'s events, billed from message_start and message_delta (Anthropic SDK)', async () => {
    const { key, id } = await newKey();
    const client = new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0 });
    const events = client.messages.stream({ model: 'native', max_tokens: 50, messages: [{ role: 'user', content: 'mock:{"kind":"stream","chunks":3,"promptTokens":17}' }] });
    const final = await events.finalMessage();
    expect(final).toMatchObject({ model: 'native', content: [{ type: 'text', text: 'w1 w2 w3 ' }], usage: { input_tokens: 17, output_tokens: 3 } });
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 17, completionTokens: 3 });
  });

  it('an upstream error status is answered in the endpoint\'s own error shape', async () => {
    const { key } = await newKey();
    const client = new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0 });
    const refused = client.messages.create({ model: 'native', max_tokens: 50, messages: [{ role: 'user', content: 'mock:{"kind":"status","status":429,"retryAfter":"3"}' }] });
    await expect(refused).rejects.toMatchObject({ status: 429, error: { type: 'error', error: { type: 'rate_limit_error' } } });
  });
});

describe('byte for byte, and cut short', () => {
  it('a JSON answer and a stream come back exactly as the upstream wrote them, but for the model', async () => {
    const { key } = await newKey();
    const json = '{"id":"msg_1" , "type":"message","role":"assistant","model":  "up-model","content":[{"type":"text","text":"caf\\u00e9 ✓"}],"usage":{"input_tokens":3,"output_tokens":2}}';
    scripted.answer = (response) => response.writeHead(200, { 'content-type': 'application/json' }).end(json);
    const answer = await post('/v1/messages', key, JSON.stringify({ model: 'scripted', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }));
    expect(await answer.text()).toBe(json.replace('"model":  "up-model"', '"model":  "scripted"'));

    const events = [...messagesEvents('up-model', ['ça ', 'va'], { input: 4, output: 2 }), ': keep-alive\n\n'];
    scripted.answer = stream(...events.map((event) => event.replace('"type":"ping"', '"type" : "ping"')));
    const streamed = await post('/v1/messages', key, JSON.stringify({ model: 'scripted', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await streamed.text()).toBe(events.join('').replace('"type":"ping"', '"type" : "ping"').replace('"model":"up-model"', '"model":"scripted"'));
  });

  it('a Responses stream cut before its last event ends with response.failed, billed for what it delivered', async () => {
    const { key, id } = await newKey();
    scripted.answer = stream(...responsesEvents('up-model', ['Hel', 'lo'], { input: 40, output: 9 }, false));
    const response = await post('/v1/responses', key, JSON.stringify({ model: 'scripted', input: 'hi', stream: true, store: false }));
    const events = eventsOf(await response.text());
    const last = events.at(-1)!;
    expect(last).toMatchObject({ name: 'response.failed', data: { type: 'response.failed', response: { id: 'resp_mock1', model: 'scripted', status: 'failed', error: { code: 'server_error' } } } });
    expect(events.filter((event) => event.name === 'response.output_text.delta')).toHaveLength(2);
    expect(events.filter((event) => event.name === 'response.failed')).toHaveLength(1);
    // No usage came: the prompt is our estimate, the completion the deltas relayed, not the upstream's 9.
    expect(await usageOf(id)).toMatchObject({ requests: 1, completionTokens: 2 });
  });

  it('the openai SDK reads a cut stream to its response.failed', async () => {
    const { key } = await newKey();
    scripted.answer = stream(...responsesEvents('up-model', ['Hel'], { input: 4, output: 1 }, false));
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const events = await client.responses.create({ model: 'scripted', input: 'hi', stream: true, store: false });
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types.at(-1)).toBe('response.failed');
    const helper = client.responses.stream({ model: 'scripted', input: 'hi', store: false });
    const final = await helper.finalResponse();
    expect(final).toMatchObject({ id: 'resp_mock1', status: 'failed', model: 'scripted', error: { code: 'server_error' } });
  });

  it('a Messages stream cut mid-way ends with Anthropic\'s error event, which the SDK raises', async () => {
    const { key, id } = await newKey();
    scripted.answer = stream(...messagesEvents('up-model', ['a', 'b', 'c'], { input: 6, output: 3 }, false));
    const response = await post('/v1/messages', key, JSON.stringify({ model: 'scripted', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    const events = eventsOf(await response.text());
    expect(events.at(-1)).toEqual({ name: 'error', data: { type: 'error', error: { type: 'api_error', message: expect.any(String) } } });
    // The prompt came in message_start; the completion is the deltas relayed.
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 6, completionTokens: 3 });

    const client = new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0 });
    const cut = client.messages.stream({ model: 'scripted', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
    await expect(cut.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
  });

  it("the upstream's own failure event is relayed as it is, and ends the stream", async () => {
    const { key } = await newKey();
    const failed = sse('response.failed', { type: 'response.failed', sequence_number: 2, response: { id: 'resp_mock1', object: 'response', model: 'up-model', status: 'failed', error: { code: 'server_error', message: 'out of memory' } } });
    scripted.answer = stream(...responsesEvents('up-model', [], { input: 1, output: 0 }, false).slice(0, 2), failed);
    const response = await post('/v1/responses', key, JSON.stringify({ model: 'scripted', input: 'hi', stream: true, store: false }));
    const events = eventsOf(await response.text());
    expect(events.map((event) => event.name)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(events[2]!.data.response).toMatchObject({ model: 'scripted', error: { message: 'out of memory' } });
  });
});

describe('failover and fallback', () => {
  it('a failing native upstream hands the request to another that speaks the API', async () => {
    const { key } = await newKey();
    const before = failing.totals.requests;
    const response = await post('/v1/responses', key, JSON.stringify({ model: 'failover', input: 'hi', store: false }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 'resp_mock1', model: 'failover' });
    expect(failing.totals.requests).toBe(before + 1);
    expect(failing.requests.at(-1)!.path).toBe('/v1/responses');
    expect(lastSeen().path).toBe('/v1/responses');
  });

  it('…and to one that speaks only chat, as the translated request, streamed too', async () => {
    const { key } = await newKey();
    const response = await post('/v1/messages', key, JSON.stringify({ model: 'tochat', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: expect.stringMatching(/^msg_/), model: 'tochat', content: [{ type: 'text', text: 'Hello from the mock upstream.' }] });
    expect(failing.requests.at(-1)!.path).toBe('/v1/messages');
    expect(lastSeen().path).toBe('/v1/chat/completions');

    const streamed = await post('/v1/messages', key, JSON.stringify({ model: 'tochat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    const names = eventsOf(await streamed.text()).map((event) => event.name);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('message_stop');
    expect(lastSeen().path).toBe('/v1/chat/completions');
  });

  it('an upstream that does not list the API gets the chat translation', async () => {
    const { key, id } = await newKey();
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const response = await client.responses.create({ model: 'chatonly', input: 'hi' });
    // The Response is made here (the mock's own would be resp_mock1).
    expect(response).toMatchObject({ id: expect.stringMatching(/^resp_(?!mock)/), model: 'chatonly' });
    expect(response.output_text).toBe('Hello from the mock upstream.');
    expect(lastSeen().path).toBe('/v1/chat/completions');
    expect(JSON.parse(lastSeen().rawBody)).toMatchObject({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(await usageOf(id)).toMatchObject({ requests: 1, promptTokens: 10, completionTokens: 5 });
  });

  it('a model on the built-in engine answers through the translation', async () => {
    const { key } = await newKey();
    const requests = mock.totals.requests;
    const response = await post('/v1/responses', key, JSON.stringify({ model: 'fast', input: 'hi', max_output_tokens: 8 }));
    expect(response.status).toBe(200);
    const answer = await response.json();
    // 8 tokens: the engine's reply is usually cut there (incomplete, max_output_tokens).
    expect(answer).toMatchObject({ id: expect.stringMatching(/^resp_(?!mock)/), model: 'fast', status: expect.stringMatching(/^(completed|incomplete)$/) });
    expect(answer.output[0].content[0].text.length).toBeGreaterThan(0);
    const streamed = await post('/v1/messages', key, JSON.stringify({ model: 'fast', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(eventsOf(await streamed.text()).at(-1)!.name).toBe('message_stop');
    expect(mock.totals.requests).toBe(requests);
  });
});

describe('a native stream the gateway ends itself', () => {
  it('ends at the drain deadline with the API\'s failure event, and the upstream request is aborted', async () => {
    const own = await startGateway({
      ...FAST_TEST_CONFIG,
      server: { shutdownGraceMs: 200 },
      models: { native: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model', api: ALL }] } },
    });
    const { key } = await own.createKey();
    const aborted = mock.totals.aborted;
    const response = await fetch(`${own.origin}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'native', stream: true, store: false, input: 'mock:{"kind":"hang","afterChunks":1}' }),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += new TextDecoder().decode((await reader.read()).value);
    expect(await own.app.shutdown()).toBe(false);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    const events = eventsOf(text);
    expect(events.map((event) => event.name)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.failed']);
    expect(events.at(-1)!.data).toMatchObject({ sequence_number: 5, response: { id: 'resp_mock1', model: 'native', status: 'failed', error: { message: expect.stringMatching(/shutting down/) } } });
    await mock.waitForAbort(aborted + 1);
  });
});
