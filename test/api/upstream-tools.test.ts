// Tools and structured outputs through a relayed model (the vLLM-like mock upstream), with the openai
// SDK: what reaches the upstream, tool calls and tool-call deltas relayed unchanged with usage still
// read, and the per-model `supports` switches refusing what the server cannot do.
import OpenAI, { APIError } from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { expectValid } from '../helpers/schema-validator.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockUpstream();
  const upstreams = [{ baseUrl: mock.baseUrl, model: 'mock-model' }];
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    models: {
      ...FAST_TEST_CONFIG.models,
      up: { upstreams },
      'up-text-only': { upstreams, supports: { tools: false, responseFormat: false } },
      'up-vision': { upstreams, supports: { contentParts: true } },
    },
  });
  const { key } = await gateway.createKey();
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});
beforeEach(() => mock.reset());

const PARAMETERS = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'], additionalProperties: false };
const TOOLS: ChatCompletionFunctionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: PARAMETERS } }];
const ASK = [{ role: 'user' as const, content: 'Weather in Split?' }];

describe('relayed model: the protocol passes through', () => {
  it('forwards tools, tool_choice, parallel_tool_calls and response_format, and relays the tool call', async () => {
    const completion = await client.chat.completions.create({
      model: 'up', messages: ASK, tools: TOOLS, tool_choice: 'required', parallel_tool_calls: false, response_format: { type: 'json_object' },
    });
    const sent = mock.requests[0]!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'mock-model', tools: TOOLS, tool_choice: 'required', parallel_tool_calls: false, response_format: { type: 'json_object' } });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expectValid(PARAMETERS, JSON.parse(call.type === 'function' ? call.function.arguments : ''));
    expect(completion.model).toBe('up');
  });

  it('forwards the tool history of the follow-up turn unchanged', async () => {
    const messages = [
      ...ASK,
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_a', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Split","days":1}' } }] },
      { role: 'tool' as const, tool_call_id: 'call_a', content: 'sunny' },
    ];
    const completion = await client.chat.completions.create({ model: 'up', messages, tools: TOOLS });
    expect((mock.requests[0]!.body as { messages: unknown }).messages).toEqual(messages);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('relays the tool-call deltas of a stream unchanged, and reads the usage', async () => {
    const stream = await client.chat.completions.create({ model: 'up', messages: ASK, tools: TOOLS, tool_choice: 'required', stream: true, stream_options: { include_usage: true } });
    const deltas = [];
    let usage;
    for await (const chunk of stream) {
      expect(chunk.model).toBe('up');
      for (const choice of chunk.choices) deltas.push(...(choice.delta.tool_calls ?? []));
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^chatcmpl-tool-/), function: { name: 'get_weather', arguments: '' } });
    expectValid(PARAMETERS, JSON.parse(deltas.slice(1).map((delta) => delta.function!.arguments).join('')));
    expect(usage).toMatchObject({ prompt_tokens: 10 });
    const completionTokens = usage!.completion_tokens;

    // Without include_usage the client gets no usage chunk, and the gateway still asked for it.
    mock.reset();
    const quiet = await client.chat.completions.create({ model: 'up', messages: ASK, tools: TOOLS, tool_choice: 'required', stream: true });
    let chunks = 0;
    for await (const chunk of quiet) {
      chunks++;
      expect(chunk.usage ?? null).toBeNull();
    }
    expect(chunks).toBeGreaterThan(2);
    expect((mock.requests[0]!.body as Record<string, unknown>).stream_options).toEqual({ include_usage: true });
    expect(completionTokens).toBeGreaterThan(0);
  });

  it('runTools and parse work through the relay', async () => {
    const cities: string[] = [];
    const runner = client.chat.completions.runTools({
      model: 'up',
      messages: ASK,
      tools: [zodFunction({ name: 'get_weather', parameters: z.object({ city: z.string(), days: z.number().int() }), function: (args) => { cities.push(args.city); return 'sunny'; } })],
    });
    expect(typeof (await runner.finalContent())).toBe('string');
    expect(cities).toHaveLength(1);

    const Answer = z.object({ answer: z.string(), confidence: z.number().min(0).max(1) });
    const parsed = await client.chat.completions.parse({ model: 'up', messages: ASK, response_format: zodResponseFormat(Answer, 'answer') });
    expect(Answer.parse(parsed.choices[0]!.message.parsed)).toBeTruthy();
  });
});

describe('relayed model: the supports switches', () => {
  async function refusal(request: Parameters<OpenAI['chat']['completions']['create']>[0]) {
    const error = await client.chat.completions.create(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(mock.requests).toHaveLength(0);
    return { status: (error as APIError).status, code: (error as APIError).code, param: (error as APIError).param };
  }

  it('refuses tools, tool turns and response formats a model declares it cannot do, before the upstream', async () => {
    expect(await refusal({ model: 'up-text-only', messages: ASK, tools: TOOLS })).toEqual({ status: 400, code: 'unsupported_parameter', param: 'tools' });
    expect(await refusal({ model: 'up-text-only', messages: ASK, response_format: { type: 'json_object' } })).toEqual({ status: 400, code: 'unsupported_parameter', param: 'response_format' });
    const history = [
      ...ASK,
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool' as const, tool_call_id: 'c', content: 'x' },
    ];
    expect(await refusal({ model: 'up-text-only', messages: history })).toEqual({ status: 400, code: 'unsupported_parameter', param: 'messages[1]' });
    // Text stays fine on that model.
    await client.chat.completions.create({ model: 'up-text-only', messages: ASK });
    expect(mock.requests).toHaveLength(1);
  });

  it('refuses before the rate limiter: a refused request takes no request from the key', async () => {
    const { key } = await gateway.createKey({ accountEmail: 'one-rpm@example.com', rpm: 1 });
    const oneRpm = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const refused = await oneRpm.chat.completions.create({ model: 'up-text-only', messages: ASK, tools: TOOLS }).catch((e: unknown) => e);
    expect((refused as APIError).code).toBe('unsupported_parameter');
    await oneRpm.chat.completions.create({ model: 'up-text-only', messages: ASK });
    const limited = await oneRpm.chat.completions.create({ model: 'up-text-only', messages: ASK }).catch((e: unknown) => e);
    expect((limited as APIError).status).toBe(429);
  });

  it('refuses content parts by default, and forwards them to a model that opts in', async () => {
    const parts = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'What is this?' }, { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }];
    expect(await refusal({ model: 'up', messages: parts })).toEqual({ status: 400, code: 'invalid_content', param: 'messages[0].content' });
    await client.chat.completions.create({ model: 'up-vision', messages: parts });
    expect((mock.requests[0]!.body as { messages: unknown }).messages).toEqual(parts);
  });
});
