// @anthropic-ai/sdk against a relayed model (`up`, a mock vLLM server speaking Chat Completions):
// the Messages request reaches it translated, its replies and streams come back as Messages, its
// failures as Anthropic errors (a mid-stream one as an `error` event), and what failed is not billed.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readMessageStream } from '../helpers/anthropic-sse.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type RelayGateway, startRelayGateway } from '../helpers/relay-gateway.ts';
import { expectValid } from '../helpers/schema-validator.ts';
import { contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

const WEATHER_SCHEMA = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const TOOLS: Anthropic.Tool[] = [{ name: 'get_weather', description: 'The weather in a city.', input_schema: WEATHER_SCHEMA }];

// This SDK's types no longer list temperature; the API takes it.
const TEMPERATURE: object = { temperature: 0.2 };
const script = (behavior: Record<string, unknown>): string => `mock:${JSON.stringify(behavior)}`;

describe('through a mock upstream', () => {
  let relay: RelayGateway;
  let client: Anthropic;

  beforeAll(async () => {
    relay = await startRelayGateway();
    client = new Anthropic({ apiKey: relay.key, baseURL: relay.gateway.origin, maxRetries: 0 });
  });
  afterAll(() => relay.close());
  afterEach(() => relay.mock.reset());

  it('sends the upstream a chat request and answers with its reply as a Message', async () => {
    const message = await client.messages.create({
      model: 'up', max_tokens: 100, system: [{ type: 'text', text: 'Be brief.' }], ...TEMPERATURE, stop_sequences: ['END'], metadata: { user_id: 'u1' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello', cache_control: { type: 'ephemeral' } }] }],
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'up', stop_reason: 'end_turn', stop_sequence: null });
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the mock upstream.', citations: null }]);
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    const [seen] = relay.mock.requests;
    expect(seen!.body).toEqual({
      model: 'mock-model', max_tokens: 100, temperature: 0.2, stop: ['END'],
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }],
    });
  });

  it('streams the upstream\'s chunks as Message events, asking it for usage and clamping max_tokens to the model', async () => {
    const streamed = client.messages.stream({ model: 'up', max_tokens: 32_000, messages: [{ role: 'user', content: script({ kind: 'stream', chunks: 4 }) }] });
    const text: string[] = [];
    streamed.on('text', (delta) => text.push(delta));
    const message = await streamed.finalMessage();
    expect(text).toEqual(['w1 ', 'w2 ', 'w3 ', 'w4 ']);
    expect(message.content).toEqual([{ type: 'text', text: 'w1 w2 w3 w4 ', citations: null }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(4);
    const body = relay.mock.requests[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 8192 });
  });

  it('runs a tool-use loop on the upstream\'s tool calls, streamed and not', async () => {
    const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Zagreb?' }];
    const first = await client.messages.create({ model: 'up', max_tokens: 200, tools: TOOLS, tool_choice: { type: 'tool', name: 'get_weather' }, messages: ask });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content[0] as Anthropic.ToolUseBlock;
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather' });
    expect(use.id).toMatch(/^toolu_/);
    expectValid(WEATHER_SCHEMA, use.input);
    const upstreamBody = relay.mock.requests[0]!.body as any;
    expect(upstreamBody.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: WEATHER_SCHEMA } }]);
    expect(upstreamBody.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });

    const streamed = await client.messages.stream({ model: 'up', max_tokens: 200, tools: TOOLS, messages: ask }).finalMessage();
    expect(streamed.stop_reason).toBe('tool_use');
    expectValid(WEATHER_SCHEMA, (streamed.content[0] as Anthropic.ToolUseBlock).input);

    const answer = await client.messages.create({
      model: 'up', max_tokens: 200, tools: TOOLS,
      messages: [...ask, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny.' }] }],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.content[0]!.type).toBe('text');
    const followUp = relay.mock.requests.at(-1)!.body as any;
    expect(followUp.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: use.id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(use.input) } }] },
      { role: 'tool', tool_call_id: use.id, content: 'Sunny.' },
    ]);
  });

  it('answers the upstream\'s failures before the stream in Anthropic\'s shape, with the same statuses', async () => {
    const failure = (behavior: Record<string, unknown>) => client.messages.create({ model: 'up', max_tokens: 10, messages: [{ role: 'user', content: script(behavior) }] }).then(
      () => { throw new Error('not refused'); },
      (error: unknown) => error as APIError,
    );
    const upstream500 = await failure({ kind: 'status', status: 500 });
    expect(upstream500).toBeInstanceOf(Anthropic.InternalServerError);
    expect([upstream500.status, upstream500.type]).toEqual([502, 'api_error']);
    const limited = await failure({ kind: 'status', status: 429, retryAfter: '3' });
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(limited.type).toBe('rate_limit_error');
    expect(limited.headers?.get('retry-after')).toBe('3');
  });

  it('ends a stream whose upstream fails mid-way with an error event, which the SDK raises', async () => {
    const response = await fetch(`${relay.gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': relay.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'up', max_tokens: 50, stream: true, messages: [{ role: 'user', content: script({ kind: 'fail-mid-stream', afterChunks: 2, message: 'CUDA out of memory' }) }] }),
    });
    expect(response.status).toBe(200);
    const { message, error } = readMessageStream(await response.text());
    expect(message.content).toEqual([{ type: 'text', text: 'w1 w2 ', citations: null }]);
    expect(error).toMatchObject({ type: 'error', error: { type: 'api_error' } });

    const reset = client.messages.stream({ model: 'up', max_tokens: 50, messages: [{ role: 'user', content: script({ kind: 'reset', afterChunks: 2 }) }] });
    const raised = await reset.finalMessage().catch((e: unknown) => e);
    expect(raised).toBeInstanceOf(APIError);
    expect((raised as APIError).type).toBe('api_error');
  });

  it('counts tokens for a relayed model', async () => {
    const counted = await client.messages.countTokens({ model: 'up', messages: [{ role: 'user', content: 'Hello there' }], tools: TOOLS });
    expect(counted.input_tokens).toBeGreaterThan(10);
    expect(relay.mock.requests).toHaveLength(0);
  });
});

describe('billing', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;
  let client: Anthropic;
  let keyId: string;

  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    gateway = await startGateway({ models: { up: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] } } });
    const created = await gateway.createKey();
    keyId = created.id;
    client = new Anthropic({ apiKey: created.key, baseURL: gateway.origin, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  /** Usage is written once a second: a wait of the default second can end just before it. */
  const USAGE_WRITTEN = { timeout: 5_000 };

  async function usageToday() {
    const today = new Date().toISOString().slice(0, 10);
    const [row] = await gateway.app.store.usageByDay([keyId], today, today);
    return row;
  }

  it('bills a served request, and not one the upstream failed before its first byte', async () => {
    const usage = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}\n\n';
    upstream.answer = stream(contentEvent('Hi'), contentEvent(' there'), FINISH_EVENT, usage, 'data: [DONE]\n\n');
    const served = await client.messages.stream({ model: 'up', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    expect(served.usage).toMatchObject({ input_tokens: 7, output_tokens: 2 });
    await vi.waitFor(async () => expect(await usageToday()).toMatchObject({ requests: 1, promptTokens: 7, completionTokens: 2 }), USAGE_WRITTEN);

    upstream.answer = (response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"boom"}}');
    };
    for (const streamed of [false, true]) {
      const failed = await client.messages.create({ model: 'up', max_tokens: 20, stream: streamed, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Anthropic.InternalServerError);
    }
    // The last request's usage marks the point by which the failures would have been recorded.
    upstream.answer = stream(contentEvent('Once more'), FINISH_EVENT, usage.replace('"prompt_tokens":7', '"prompt_tokens":100'), 'data: [DONE]\n\n');
    await client.messages.stream({ model: 'up', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
    await vi.waitFor(async () => expect((await usageToday())?.promptTokens).toBe(107), USAGE_WRITTEN);
    expect(await usageToday()).toMatchObject({ requests: 2, completionTokens: 4 });
  });
});
