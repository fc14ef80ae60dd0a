// The response cache on the Responses and Messages APIs, on the default settings with a model that
// turns it on: a hit replays the reply as the client got it (JSON, or the stream's events) with a
// fresh id (`resp_…`, `msg_…`) and, for a Response, now as its times; a kept stream answers a JSON
// request with the same content; only whole replies are kept; a Response that is stored or
// continues a stored one is never cached; protocols never share entries.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Answer, chunkEvent, contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';
import { parseNamedSse } from '../helpers/sse.ts';

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let key: string;
let calls: number;

const JSON_REPLY = '{"id":"chatcmpl-up1","object":"chat.completion","created":1700000000,"model":"up-model","choices":[{"index":0,"message":{"role":"assistant","content":"Zagreb, of course."},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}';
const USAGE_CHUNK = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}\n\n';
const TOOL_START = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"lookup","arguments":""}}]},"finish_reason":null}');
const TOOL_ARGS = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Zagreb\\"}"}}]},"finish_reason":null}');
const TOOL_FINISH = chunkEvent('{"index":0,"delta":{},"finish_reason":"tool_calls"}');
const TOOLS_RESPONSES = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
const TOOLS_MESSAGES = [{ name: 'lookup', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];

function json(body: string): Answer {
  return (response: ServerResponse) => {
    calls++;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  };
}

function counted(answer: Answer): Answer {
  return (response, request, body) => {
    calls++;
    answer(response, request, body);
  };
}

beforeEach(async () => {
  calls = 0;
  upstream = await startScriptedUpstream();
  gateway = await startGateway({
    engine: { threads: 1 },
    models: { cached: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], cache: { enabled: true } } },
  });
  ({ key } = await gateway.createKey());
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
});

function responses(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gateway.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'cached', input: 'Capital of Croatia?', temperature: 0, store: false, ...body }),
  });
}

function messages(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${gateway.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'cached', max_tokens: 100, messages: [{ role: 'user', content: 'Capital of Croatia?' }], temperature: 0, ...body }),
  });
}

/** The text with its first id (the Response's, the Message's) everywhere and its times masked. */
function masked(text: string): string {
  const id = /"id":"([^"]+)"/.exec(text)![1]!;
  return text.replaceAll(`"id":"${id}"`, '"id":"ID"').replace(/"(created_at|completed_at)":\d+/g, '"$1":0');
}

function firstId(text: string): string {
  return /"id":"([^"]+)"/.exec(text)![1]!;
}

async function twice(send: () => Promise<Response>): Promise<[string, string]> {
  const first = await send();
  expect(first.headers.get('x-munja-cache')).toBe('miss');
  const firstText = await first.text();
  const second = await send();
  expect(second.status).toBe(200);
  expect(second.headers.get('x-munja-cache')).toBe('hit');
  return [firstText, await second.text()];
}

describe('the Responses API', () => {
  it('replays a JSON Response with a fresh resp_ id and now as its times', async () => {
    upstream.answer = json(JSON_REPLY);
    const [first, second] = await twice(() => responses({}));
    expect(calls).toBe(1);
    const a = JSON.parse(first);
    const b = JSON.parse(second);
    expect(b.object).toBe('response');
    expect(b.id).toMatch(/^resp_/);
    expect(b.id).not.toBe(a.id);
    expect(b.id).toHaveLength(a.id.length);
    expect(b.created_at).toBeGreaterThanOrEqual(a.created_at);
    expect(b.completed_at).toBe(b.created_at);
    expect(masked(second)).toBe(masked(first));
    expect(b.output[0].content[0].text).toBe('Zagreb, of course.');
  });

  it('replays a stream\'s events, text and function-call deltas, with a fresh id', async () => {
    upstream.answer = counted(stream(contentEvent('Za'), contentEvent('greb'), TOOL_START, TOOL_ARGS, TOOL_FINISH, USAGE_CHUNK, 'data: [DONE]\n\n'));
    const [first, second] = await twice(() => responses({ stream: true, tools: TOOLS_RESPONSES }));
    expect(calls).toBe(1);
    expect(firstId(second)).not.toBe(firstId(first));
    expect(masked(second)).toBe(masked(first));
    const events = parseNamedSse(second).map((event) => JSON.parse(event.data) as Record<string, any>);
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.at(-1)!.response.id).toBe(firstId(second));
    expect(second).toContain('"type":"response.function_call_arguments.delta"');
  });

  it('says on a hit which tools were taken out of the offer, as on the miss', async () => {
    upstream.answer = json(JSON_REPLY);
    const body = { tools: [...TOOLS_RESPONSES, { type: 'web_search' }] };
    const first = await responses(body);
    const omitted = first.headers.get('x-munja-omitted-tools');
    expect(omitted).toContain('web_search');
    await first.text();
    const second = await responses(body);
    expect(second.headers.get('x-munja-cache')).toBe('hit');
    expect(second.headers.get('x-munja-omitted-tools')).toBe(omitted);
    await second.text();
  });

  it('never caches a Response that is stored or continues a stored one', async () => {
    upstream.answer = json(JSON_REPLY);
    const stored = await responses({ store: true });
    expect(stored.headers.get('x-munja-cache')).toBe('bypass');
    const { id } = await stored.json();
    const again = await responses({ store: true });
    expect(again.headers.get('x-munja-cache')).toBe('bypass');
    const { id: againId } = await again.json();
    expect(calls).toBe(2);
    // Each one is stored under its own id, as without the cache.
    for (const storedId of [id, againId]) {
      const read = await fetch(`${gateway.baseURL}/responses/${storedId}`, { headers: { authorization: `Bearer ${key}` } });
      expect(read.status).toBe(200);
    }
    const continued = await responses({ previous_response_id: id });
    expect(continued.headers.get('x-munja-cache')).toBe('bypass');
    await continued.text();
  });

  it('never keeps a Response that did not complete', async () => {
    upstream.answer = json(JSON_REPLY.replace('"finish_reason":"stop"', '"finish_reason":"length"'));
    const first = await responses({});
    expect((await first.json()).status).toBe('incomplete');
    // A stream that ended incomplete, without an error.
    const LENGTH = chunkEvent('{"index":0,"delta":{},"finish_reason":"length"}');
    upstream.answer = counted(stream(contentEvent('Zag'), LENGTH, USAGE_CHUNK, 'data: [DONE]\n\n'));
    expect(await (await responses({ stream: true })).text()).toContain('"type":"response.incomplete"');
    const incompleteAgain = await responses({ stream: true });
    expect(incompleteAgain.headers.get('x-munja-cache')).toBe('miss');
    await incompleteAgain.text();
    upstream.answer = counted(stream(contentEvent('Zag')));
    await (await responses({ stream: true })).text();
    upstream.answer = json(JSON_REPLY);
    const again = await responses({});
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    await again.text();
    const streamAgain = await responses({ stream: true });
    expect(streamAgain.headers.get('x-munja-cache')).toBe('miss');
    await streamAgain.text();
  });

  it('keeps its entries apart from chat completions\' and from the other form', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await responses({})).text();
    const chat = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'cached', messages: [{ role: 'user', content: 'Capital of Croatia?' }], temperature: 0 }),
    });
    expect(chat.headers.get('x-munja-cache')).toBe('miss');
    expect((await chat.json()).object).toBe('chat.completion');
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, USAGE_CHUNK, 'data: [DONE]\n\n'));
    // A kept JSON Response does not answer a stream: the stream is a miss and replaces it.
    const streamed = await responses({ stream: true });
    expect(streamed.headers.get('x-munja-cache')).toBe('miss');
    expect(await streamed.text()).toContain('response.completed');
  });
});

describe('a kept stream answering a JSON request', () => {
  const STREAMED = () => counted(stream(contentEvent('Za'), contentEvent('greb'), TOOL_START, TOOL_ARGS, TOOL_FINISH, USAGE_CHUNK, 'data: [DONE]\n\n'));
  const AS_JSON = '{"id":"chatcmpl-up2","object":"chat.completion","created":1700000000,"model":"up-model","choices":[{"index":0,"message":{"role":"assistant","content":"Zagreb","tool_calls":[{"id":"call_abc","type":"function","function":{"name":"lookup","arguments":"{\\"city\\":\\"Zagreb\\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}';

  /** The reply without its ids and times, which differ from one reply to the next. */
  function content(reply: unknown): unknown {
    return JSON.parse(JSON.stringify(reply), (name, value: unknown) => (name === 'id' || name === 'created_at' || name === 'completed_at' ? undefined : value));
  }

  async function relayedJson(path: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<unknown> {
    const other = await gateway.createKey({ accountEmail: 'other@example.com' });
    upstream.answer = json(AS_JSON);
    const response = await fetch(`${gateway.origin}${path}`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${other.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.headers.get('x-munja-cache')).toBe('miss');
    return response.json();
  }

  it('is the Response its response.completed event carries', async () => {
    upstream.answer = STREAMED();
    await (await responses({ stream: true, tools: TOOLS_RESPONSES })).text();
    const hit = await responses({ tools: TOOLS_RESPONSES });
    expect(hit.headers.get('x-munja-cache')).toBe('hit');
    expect(hit.headers.get('content-type')).toContain('application/json');
    const body = await hit.json();
    expect(body).toMatchObject({ object: 'response', status: 'completed' });
    expect(body.id).toMatch(/^resp_/);
    expect(calls).toBe(1);
    // The same content as the JSON reply to the same answer.
    const relayed = await relayedJson('/v1/responses', {}, { model: 'cached', input: 'Capital of Croatia?', temperature: 0, store: false, tools: TOOLS_RESPONSES });
    expect(content(body)).toEqual(content(relayed));
  });

  it('is the Message its events build: text and tool_use blocks, stop_reason and usage', async () => {
    upstream.answer = STREAMED();
    await (await messages({ stream: true, tools: TOOLS_MESSAGES })).text();
    const hit = await messages({ tools: TOOLS_MESSAGES });
    expect(hit.headers.get('x-munja-cache')).toBe('hit');
    const body = await hit.json();
    expect(body).toMatchObject({
      type: 'message', stop_reason: 'tool_use',
      content: [{ type: 'text', text: 'Zagreb' }, { type: 'tool_use', name: 'lookup', input: { city: 'Zagreb' } }],
    });
    expect(body.id).toMatch(/^msg_/);
    expect(calls).toBe(1);
    const relayed = await relayedJson('/v1/messages', { 'anthropic-version': '2023-06-01' }, { model: 'cached', max_tokens: 100, messages: [{ role: 'user', content: 'Capital of Croatia?' }], temperature: 0, tools: TOOLS_MESSAGES });
    expect(content(body)).toEqual(content(relayed));
  });
});

describe('the Messages API', () => {
  it('replays a JSON Message with a fresh msg_ id', async () => {
    upstream.answer = json(JSON_REPLY);
    const [first, second] = await twice(() => messages({}));
    expect(calls).toBe(1);
    const a = JSON.parse(first);
    const b = JSON.parse(second);
    expect(b).toMatchObject({ type: 'message', stop_reason: 'end_turn' });
    expect(b.id).toMatch(/^msg_/);
    expect(b.id).not.toBe(a.id);
    expect(masked(second)).toBe(masked(first));
  });

  it('replays a stream\'s events, text and tool-use deltas, with a fresh id', async () => {
    upstream.answer = counted(stream(contentEvent('Za'), contentEvent('greb'), TOOL_START, TOOL_ARGS, TOOL_FINISH, USAGE_CHUNK, 'data: [DONE]\n\n'));
    const [first, second] = await twice(() => messages({ stream: true, tools: TOOLS_MESSAGES }));
    expect(calls).toBe(1);
    expect(firstId(second)).not.toBe(firstId(first));
    expect(firstId(second)).toMatch(/^msg_/);
    expect(masked(second)).toBe(masked(first));
    const types = parseNamedSse(second).map((event) => event.event);
    expect(types.at(-1)).toBe('message_stop');
    expect(second).toContain('"type":"input_json_delta"');
  });

  it('never keeps a stream that failed', async () => {
    upstream.answer = counted(stream(contentEvent('Zag')));
    const failed = await (await messages({ stream: true })).text();
    expect(failed).toContain('event: error');
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, USAGE_CHUNK, 'data: [DONE]\n\n'));
    const again = await messages({ stream: true });
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    await again.text();
    expect(calls).toBe(2);
  });

  it('never keeps a refusal, JSON or streamed', async () => {
    const FILTERED = chunkEvent('{"index":0,"delta":{},"finish_reason":"content_filter"}');
    upstream.answer = counted(stream(contentEvent('No.'), FILTERED, USAGE_CHUNK, 'data: [DONE]\n\n'));
    const refused = await (await messages({ stream: true })).text();
    expect(refused).toContain('"stop_reason":"refusal"');
    expect(refused).toContain('event: message_stop');
    const again = await messages({ stream: true });
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    await again.text();
    upstream.answer = json(JSON_REPLY.replace('"finish_reason":"stop"', '"finish_reason":"content_filter"'));
    await (await messages({})).text();
    const jsonAgain = await messages({});
    expect(jsonAgain.headers.get('x-munja-cache')).toBe('miss');
    await jsonAgain.text();
    expect(calls).toBe(4);
  });

  it('bypasses a request that is not deterministic', async () => {
    upstream.answer = json(JSON_REPLY);
    const warm = await messages({ temperature: 0.7 });
    expect(warm.headers.get('x-munja-cache')).toBe('bypass');
    await warm.text();
  });
});
