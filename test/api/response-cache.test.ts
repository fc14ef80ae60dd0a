// The response cache on its default settings, with a model that turns it on in its config: a hit
// replays the reply byte for byte but for a fresh id and `created` (JSON, streamed text, tool-call
// and reasoning deltas); only deterministic requests are cached; failures, cut streams and refusals
// never are; accounts never share entries; concurrent identical misses call the upstream once.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { adminClient } from '../helpers/admin-client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Answer, chunkEvent, contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let key: string;
let keyId: string;
/** Requests the upstream answered. */
let calls: number;

const JSON_REPLY = '{"id":"chatcmpl-up0000000000000000000001","object":"chat.completion","created":1700000000,"model":"up-model","choices":[{"index":0,"message":{"role":"assistant","content":"Zagreb, of course.","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}';

function json(body: string, status = 200) {
  return (response: ServerResponse) => {
    calls++;
    response.writeHead(status, { 'content-type': 'application/json' });
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
    models: {
      cached: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }], cache: { enabled: true } },
      plain: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] },
      local: { local: { language: 'en' }, cache: { enabled: true } },
    },
  });
  ({ key, id: keyId } = await gateway.createKey());
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
});

function post(body: Record<string, unknown>, headers: Record<string, string> = {}, apiKey = key) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'cached', messages: [{ role: 'user', content: 'Capital of Croatia?' }], temperature: 0, ...body }),
  });
}

/** The body with its completion id and `created` masked, to compare the rest byte for byte. */
function masked(text: string, id: string): string {
  return text.replaceAll(`"id":"${id}"`, '"id":"ID"').replace(/"created":\d+/g, '"created":0');
}

/** A chat stream's content, finish_reason, usage and chunk ids. */
function joined(text: string): { content: string; finish: string | null; usage: unknown; ids: string[] } {
  let content = '';
  let finish: string | null = null;
  let usage: unknown = null;
  const ids: string[] = [];
  for (const event of text.split('\n\n')) {
    if (!event.startsWith('data: {')) continue;
    const chunk = JSON.parse(event.slice(6));
    ids.push(chunk.id);
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice?.delta?.content) content += choice.delta.content;
    if (choice?.finish_reason) finish = choice.finish_reason;
  }
  return { content, finish, usage, ids };
}

function streamId(text: string): string {
  return /"id":"([^"]+)"/.exec(text)![1]!;
}

describe('a JSON reply', () => {
  it('is stored on a miss and replayed on a hit with a fresh id and created', async () => {
    upstream.answer = json(JSON_REPLY);
    const first = await post({});
    expect(first.headers.get('x-munja-cache')).toBe('miss');
    const firstText = await first.text();
    const second = await post({});
    expect(second.status).toBe(200);
    expect(second.headers.get('x-munja-cache')).toBe('hit');
    expect(second.headers.get('content-type')).toContain('application/json');
    const secondText = await second.text();
    expect(calls).toBe(1);
    const a = JSON.parse(firstText);
    const b = JSON.parse(secondText);
    expect(b.id).not.toBe(a.id);
    expect(b.id).toMatch(/^chatcmpl-[A-Za-z0-9]+$/);
    expect(b.id).toHaveLength(a.id.length);
    expect(b.created).toBeGreaterThan(1700000000);
    expect(masked(secondText, b.id)).toBe(masked(firstText, a.id));
    // The original token counts stand in the reply.
    expect(b.usage).toEqual({ prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
  });

  it('is shared by requests that differ only in field order and defaults', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await post({ top_p: 1, n: 1 })).text();
    const reordered = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ temperature: 0, messages: [{ content: 'Capital of Croatia?', role: 'user' }], model: 'cached', user: 'someone' }),
    });
    expect(reordered.headers.get('x-munja-cache')).toBe('hit');
    await reordered.text();
    expect(calls).toBe(1);
  });

  it('is billed on a hit as one request with no tokens', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await post({})).text();
    await (await post({})).text();
    const today = new Date().toISOString().slice(0, 10);
    await vi.waitFor(async () => {
      // The hit counts under the model asked for, as the request that filled the cache did.
      const rows = await gateway.app.store.usageByDay([keyId], today, today);
      expect(rows).toEqual([expect.objectContaining({ model: 'cached', requests: 2, promptTokens: 9, completionTokens: 4 })]);
    });
  });
});

describe('a streamed reply', () => {
  const REASONING = chunkEvent('{"index":0,"delta":{"reasoning_content":"The capital is"},"finish_reason":null}');
  const TOOL_START = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"lookup","arguments":""}}]},"finish_reason":null}');
  const TOOL_ARGS = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]},"finish_reason":null}');
  const TOOL_ARGS_END = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Zagreb\\"}"}}]},"finish_reason":null}');
  const TOOL_FINISH = chunkEvent('{"index":0,"delta":{},"finish_reason":"tool_calls"}');

  it('replays the same events: text, reasoning and tool-call deltas, with a fresh id and created', async () => {
    upstream.answer = counted(stream(REASONING, contentEvent('Za'), contentEvent('greb'), TOOL_START, TOOL_ARGS, TOOL_ARGS_END, TOOL_FINISH, 'data: [DONE]\n\n'));
    const first = await post({ stream: true });
    expect(first.headers.get('x-munja-cache')).toBe('miss');
    const firstText = await first.text();
    const second = await post({ stream: true });
    expect(second.headers.get('x-munja-cache')).toBe('hit');
    expect(second.headers.get('content-type')).toContain('text/event-stream');
    const secondText = await second.text();
    expect(calls).toBe(1);
    const firstId = streamId(firstText);
    const secondId = streamId(secondText);
    expect(secondId).not.toBe(firstId);
    expect(masked(secondText, secondId)).toBe(masked(firstText, firstId));
    expect(secondText).toContain('"reasoning_content":"The capital is"');
    expect(secondText).toContain('"id":"call_abc"');
    expect(secondText.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('without its usage chunk does not answer a JSON request, which refills the entry', async () => {
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, 'data: [DONE]\n\n'));
    await (await post({ stream: true })).text();
    upstream.answer = json(JSON_REPLY);
    const asJson = await post({});
    expect(asJson.headers.get('x-munja-cache')).toBe('miss');
    expect(JSON.parse(await asJson.text()).object).toBe('chat.completion');
    expect(calls).toBe(2);
    // The JSON reply now answers the stream too.
    const streamed = await post({ stream: true });
    expect(streamed.headers.get('x-munja-cache')).toBe('hit');
    expect(joined(await streamed.text()).content).toBe('Zagreb, of course.');
    expect(calls).toBe(2);
  });

  it('of the local engine is replayed too', async () => {
    const first = await post({ model: 'local', stream: true, seed: 7, temperature: 1 });
    const firstText = await first.text();
    const second = await post({ model: 'local', stream: true, seed: 7, temperature: 1 });
    expect(second.headers.get('x-munja-cache')).toBe('hit');
    const secondText = await second.text();
    expect(masked(secondText, streamId(secondText))).toBe(masked(firstText, streamId(firstText)));
  });
});

describe('across forms', () => {
  const USAGE = '{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}';
  const TOOL_START = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"lookup","arguments":""}}]},"finish_reason":null}');
  const TOOL_ARGS = chunkEvent('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Zagreb\\"}"}}]},"finish_reason":null}');
  const REASONING = chunkEvent('{"index":0,"delta":{"reasoning_content":"Croatia\'s capital"},"finish_reason":null}');
  const USAGE_CHUNK = `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":${USAGE}}\n\n`;

  it('serves a stored JSON reply to a stream, with its usage chunk when asked', async () => {
    upstream.answer = json(JSON_REPLY);
    const stored = JSON.parse(await (await post({})).text());
    const streamed = await post({ stream: true, stream_options: { include_usage: true } });
    expect(streamed.headers.get('x-munja-cache')).toBe('hit');
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const text = await streamed.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    const { content, finish, usage, ids } = joined(text);
    expect(content).toBe(stored.choices[0].message.content);
    expect(finish).toBe('stop');
    expect(usage).toEqual(stored.usage);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).not.toBe(stored.id);
    expect(calls).toBe(1);
  });

  it('serves a stored stream to a JSON request: text, reasoning, tool calls, finish_reason and usage joined', async () => {
    upstream.answer = counted(stream(REASONING, contentEvent('Za'), contentEvent('greb'), TOOL_START, TOOL_ARGS,
      chunkEvent('{"index":0,"delta":{},"finish_reason":"tool_calls"}'), USAGE_CHUNK, 'data: [DONE]\n\n'));
    await (await post({ stream: true, stream_options: { include_usage: true } })).text();
    const asJson = await post({});
    expect(asJson.headers.get('x-munja-cache')).toBe('hit');
    expect(asJson.headers.get('content-type')).toContain('application/json');
    const body = await asJson.json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      choices: [{
        index: 0, finish_reason: 'tool_calls',
        message: {
          role: 'assistant', content: 'Zagreb', reasoning_content: 'Croatia\'s capital',
          tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'lookup', arguments: '{"city":"Zagreb"}' } }],
        },
      }],
      usage: JSON.parse(USAGE),
    });
    expect(calls).toBe(1);
  });

  it('serves a stored stream with usage to a stream without, the same events but the usage chunk', async () => {
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, USAGE_CHUNK, 'data: [DONE]\n\n'));
    const first = await (await post({ stream: true, stream_options: { include_usage: true } })).text();
    const second = await post({ stream: true });
    expect(second.headers.get('x-munja-cache')).toBe('hit');
    const secondText = await second.text();
    const withoutUsage = first.split('\n\n').filter((event) => !event.includes('"choices":[]')).join('\n\n');
    expect(masked(secondText, streamId(secondText))).toBe(masked(withoutUsage, streamId(first)));
    expect(calls).toBe(1);
  });
});

describe('what is never cached', () => {
  it('a stream cut before a choice finished', async () => {
    upstream.answer = counted(stream(contentEvent('Zag')));
    await (await post({ stream: true })).text();
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, 'data: [DONE]\n\n'));
    const again = await post({ stream: true });
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    expect(await again.text()).toContain('Zagreb');
    expect(calls).toBe(2);
  });

  it('an upstream error, whose answer says it was a miss', async () => {
    upstream.answer = json('{"error":{"message":"overloaded","type":"server_error","code":null}}', 500);
    const failed = await post({});
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.headers.get('x-munja-cache')).toBe('miss');
    await failed.text();
    const bypassed = await post({ temperature: 0.5 });
    expect(bypassed.status).toBeGreaterThanOrEqual(500);
    expect(bypassed.headers.get('x-munja-cache')).toBe('bypass');
    await bypassed.text();
    upstream.answer = json(JSON_REPLY);
    const again = await post({});
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    await again.text();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect((await post({})).headers.get('x-munja-cache')).toBe('hit');
  });

  it('a refusal or a filtered reply', async () => {
    upstream.answer = json(JSON_REPLY.replace('"finish_reason":"stop"', '"finish_reason":"content_filter"'));
    await (await post({})).text();
    upstream.answer = json(JSON_REPLY.replace('"refusal":null', '"refusal":"I cannot help with that."'));
    await (await post({})).text();
    const third = await post({});
    expect(third.headers.get('x-munja-cache')).toBe('miss');
    await third.text();
    expect(calls).toBe(3);
  });

  it('a stream whose client left', async () => {
    let release: () => void = () => {};
    upstream.answer = counted((response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(contentEvent('Zag'));
      release = () => response.end(`${FINISH_EVENT}data: [DONE]\n\n`);
    });
    const first = await post({ stream: true });
    const reader = first.body!.getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(() => expect(upstream.aborted).toBe(1));
    release();
    upstream.answer = counted(stream(contentEvent('Zagreb'), FINISH_EVENT, 'data: [DONE]\n\n'));
    const again = await post({ stream: true });
    expect(again.headers.get('x-munja-cache')).toBe('miss');
    await again.text();
    expect(calls).toBe(2);
  });
});

describe('which requests are cached', () => {
  it('only deterministic ones by default: temperature 0 or a seed', async () => {
    upstream.answer = json(JSON_REPLY);
    const warm = await post({ temperature: 0.7 });
    expect(warm.headers.get('x-munja-cache')).toBe('bypass');
    await warm.text();
    await (await post({ temperature: 0.7 })).text();
    expect(calls).toBe(2);
    await (await post({ temperature: 0.7, seed: 42 })).text();
    const seeded = await post({ temperature: 0.7, seed: 42 });
    expect(seeded.headers.get('x-munja-cache')).toBe('hit');
    await seeded.text();
    expect(calls).toBe(3);
  });

  it('never across accounts', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await post({})).text();
    const other = await gateway.createKey({ accountEmail: 'other@example.com' });
    const theirs = await post({}, {}, other.key);
    expect(theirs.headers.get('x-munja-cache')).toBe('miss');
    await theirs.text();
    expect(calls).toBe(2);
    // A second key of the first account shares its entries.
    const sibling = await gateway.createKey();
    const ours = await post({}, {}, sibling.key);
    expect(ours.headers.get('x-munja-cache')).toBe('hit');
    await ours.text();
  });

  it('never for a key of the same account that may not use the model', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await post({})).text();
    const narrow = await gateway.createKey({ models: ['plain'] });
    const refused = await post({}, {}, narrow.key);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('model_not_allowed');
  });

  it('as the x-munja-cache header says: off, refresh, on for a model without a cache', async () => {
    upstream.answer = json(JSON_REPLY);
    await (await post({})).text();
    const off = await post({}, { 'x-munja-cache': 'off' });
    expect(off.headers.get('x-munja-cache')).toBe('bypass');
    await off.text();
    const refresh = await post({}, { 'x-munja-cache': 'refresh' });
    expect(refresh.headers.get('x-munja-cache')).toBe('miss');
    await refresh.text();
    expect(calls).toBe(3);
    const plain = await post({ model: 'plain' });
    expect(plain.headers.get('x-munja-cache')).toBeNull();
    await plain.text();
    await (await post({ model: 'plain' }, { 'x-munja-cache': 'on' })).text();
    const on = await post({ model: 'plain' }, { 'x-munja-cache': 'on' });
    expect(on.headers.get('x-munja-cache')).toBe('hit');
    await on.text();
    expect(calls).toBe(5);
  });

  it('refuses a header value it does not know, in the error shape', async () => {
    const response = await post({}, { 'x-munja-cache': 'maybe' });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value' });
    expect(calls).toBe(0);
  });
});

describe('single flight', () => {
  it('concurrent identical misses call the upstream once', async () => {
    const pending: ServerResponse[] = [];
    upstream.answer = counted((response) => pending.push(response));
    const replies = [post({}), post({}), post({})];
    await vi.waitFor(() => expect(pending).toHaveLength(1));
    pending[0]!.writeHead(200, { 'content-type': 'application/json' });
    pending[0]!.end(JSON_REPLY);
    const answered = await Promise.all(replies);
    const statuses = answered.map((response) => response.headers.get('x-munja-cache')).sort();
    expect(statuses).toEqual(['hit', 'hit', 'miss']);
    const texts = await Promise.all(answered.map((response) => response.json()));
    for (const text of texts) expect(text.choices[0].message.content).toBe('Zagreb, of course.');
    expect(calls).toBe(1);
  });

  it('a failed first call releases the waiters to call on their own', async () => {
    const pending: ServerResponse[] = [];
    upstream.answer = counted((response) => pending.push(response));
    const replies = [post({}), post({})];
    await vi.waitFor(() => expect(pending).toHaveLength(1));
    pending[0]!.writeHead(400, { 'content-type': 'application/json' });
    pending[0]!.end('{"error":{"message":"bad","type":"invalid_request_error","code":null}}');
    await vi.waitFor(() => expect(pending).toHaveLength(2));
    pending[1]!.writeHead(200, { 'content-type': 'application/json' });
    pending[1]!.end(JSON_REPLY);
    const answered = await Promise.all(replies);
    expect(answered.map((response) => response.status).sort()).toEqual([200, 400]);
    await Promise.all(answered.map((response) => response.text()));
    expect(calls).toBe(2);
  });
});

describe('purges, through the admin API', () => {
  async function filled(body: Record<string, unknown>, apiKey = key): Promise<void> {
    const response = await post(body, {}, apiKey);
    expect(response.headers.get('x-munja-cache')).toBe('miss');
    await response.text();
  }

  async function state(body: Record<string, unknown>, apiKey = key): Promise<string | null> {
    const response = await post(body, {}, apiKey);
    await response.text();
    return response.headers.get('x-munja-cache');
  }

  it('drops the entries a key filled, an account\'s, or all, and audits each', async () => {
    upstream.answer = json(JSON_REPLY);
    const admin = await gateway.createKey({ accountEmail: 'root@example.com', admin: true });
    const call = adminClient(gateway.origin, admin.key);
    const sibling = await gateway.createKey();
    const other = await gateway.createKey({ accountEmail: 'other@example.com' });
    await filled({ seed: 1 });
    await filled({ seed: 2 }, sibling.key);
    await filled({ seed: 3 }, other.key);

    const byKey = await call('DELETE', `/v1/admin/cache?key=${sibling.id}`);
    expect(byKey).toEqual({ status: 200, body: { object: 'cache.purge', purged: 1 } });
    expect(await state({ seed: 1 })).toBe('hit');
    expect(await state({ seed: 2 })).toBe('miss');

    const byAccount = await call('DELETE', '/v1/admin/cache?account=test@example.com');
    expect(byAccount.body.purged).toBe(2);
    expect(await state({ seed: 3 }, other.key)).toBe('hit');
    expect(await state({ seed: 1 })).toBe('miss');

    expect((await call('DELETE', '/v1/admin/cache?all=true')).body.purged).toBe(2);
    expect(await state({ seed: 3 }, other.key)).toBe('miss');

    const audit = await call('GET', '/v1/admin/audit?action=cache.purged');
    expect(audit.body.data.map((entry: { target: string }) => entry.target).sort()).toEqual(['all', sibling.accountId, sibling.id].sort());
  });

  it('refuses a purge without exactly one scope, or of an unknown key or account', async () => {
    const admin = await gateway.createKey({ accountEmail: 'root@example.com', admin: true });
    const call = adminClient(gateway.origin, admin.key);
    const none = await call('DELETE', '/v1/admin/cache');
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('missing_required_parameter');
    expect((await call('DELETE', `/v1/admin/cache?all=true&key=${keyId}`)).status).toBe(400);
    expect((await call('DELETE', '/v1/admin/cache?all=yes')).body.error).toMatchObject({ code: 'invalid_value', param: 'all' });
    expect((await call('DELETE', '/v1/admin/cache?key=key_nope')).body.error).toMatchObject({ code: 'key_not_found', param: 'key' });
    expect((await call('DELETE', '/v1/admin/cache?account=nobody@example.com')).body.error).toMatchObject({ code: 'account_not_found', param: 'account' });
    const ordinary = await adminClient(gateway.origin, key)('DELETE', '/v1/admin/cache?all=true');
    expect(ordinary.body.error.code).toBe('admin_required');
  });
});
