// The official @anthropic-ai/sdk, unchanged, against POST /v1/messages on the built-in engine, with
// the default settings: replies, streams, a tool-use loop, countTokens, the model list, errors.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectValid } from '../helpers/schema-validator.ts';

let gateway: TestGateway;
let key: string;
let client: Anthropic;

beforeAll(async () => {
  gateway = await startGateway();
  ({ key } = await gateway.createKey());
  client = new Anthropic({ apiKey: key, baseURL: gateway.origin, maxRetries: 0 });
});
afterAll(() => gateway.close());

const WEATHER_SCHEMA = {
  type: 'object' as const,
  properties: { city: { type: 'string', minLength: 2 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'unit'],
  additionalProperties: false,
};
const TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'The weather in a city.', input_schema: WEATHER_SCHEMA },
  { name: 'get_time', input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
];
// temperature 0 makes the engine's reply depend on the prompt alone. This SDK's types no longer
// list temperature; the API takes it.
const TEMPERATURE_0: object = { temperature: 0 };
const ASK: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Zagreb?' }];

function textOf(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describe('messages.create', () => {
  it('answers with a Message: id, role, the model asked for, a text block, a stop reason, usage and a request id', async () => {
    const message = await client.messages.create({ model: 'default', max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: 'Say something.' }] });
    expect(message.id).toMatch(/^msg_/);
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe('default');
    expect(message.content).toHaveLength(1);
    expect(message.content[0]!.type).toBe('text');
    expect(textOf(message).length).toBeGreaterThan(0);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.stop_sequence).toBeNull();
    expect(message.usage).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message._request_id).toMatch(/^req_/);
  });

  it('takes system as text blocks and a multi-turn conversation, and counts the prompt as countTokens does', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'You are terse.' }, { type: 'text', text: 'Answer in one line.', cache_control: { type: 'ephemeral' } }];
    const messages: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'How are you?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Fine, thanks.' }] },
      { role: 'user', content: 'Good.' },
    ];
    const message = await client.messages.create({ model: 'fast', max_tokens: 100, system, messages });
    expect(textOf(message).length).toBeGreaterThan(0);
    const counted = await client.messages.countTokens({ model: 'fast', system, messages });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
  });

  it('stops at max_tokens, and at a stop sequence, naming it', async () => {
    const cut = await client.messages.create({ model: 'default', max_tokens: 3, messages: ASK });
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage.output_tokens).toBe(3);
    // A word of the reply to the same prompt stops the next one.
    const whole = textOf(await client.messages.create({ model: 'default', max_tokens: 300, ...TEMPERATURE_0, messages: ASK }));
    const word = whole.split(' ')[3]!;
    const stopped = await client.messages.create({ model: 'default', max_tokens: 300, ...TEMPERATURE_0, stop_sequences: ['\u0000never', ` ${word} `], messages: ASK });
    expect(stopped.stop_reason).toBe('stop_sequence');
    expect(stopped.stop_sequence).toBe(` ${word} `);
    expect(whole.startsWith(textOf(stopped))).toBe(true);
  });

  it('clamps max_tokens to the model\'s output limit instead of refusing it', async () => {
    // The SDK streams a request that large, as Claude Code does.
    const message = await client.messages.stream({ model: 'pro', max_tokens: 32_000, messages: ASK }).finalMessage();
    expect(message.stop_reason).toBe('end_turn');
  });

  it('sends ?beta=true as the beta client does', async () => {
    const message = await client.beta.messages.create({ model: 'fast', max_tokens: 50, messages: [{ role: 'user', content: 'Hello' }], betas: ['interleaved-thinking-2025-05-14'] });
    expect(message.type).toBe('message');
    expect(message.content[0]!.type).toBe('text');
  });
});

describe('messages.stream', () => {
  it('streams the events the SDK assembles: text deltas add up to finalMessage', async () => {
    const stream = client.messages.stream({ model: 'fast', max_tokens: 200, messages: [{ role: 'user', content: 'Tell me a story.' }] });
    const types: string[] = [];
    let text = '';
    stream.on('streamEvent', (event) => types.push(event.type));
    stream.on('text', (delta) => {
      text += delta;
    });
    const message = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types.slice(1, 2)).toEqual(['content_block_start']);
    expect(types.slice(-4, -2)).toEqual(['content_block_delta', 'content_block_stop']);
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((type) => type === 'content_block_delta').length).toBeGreaterThan(1);
    expect(text.length).toBeGreaterThan(0);
    expect(textOf(message)).toBe(text);
    expect(message.id).toMatch(/^msg_/);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('names the stop sequence at the end of a stream', async () => {
    const whole = textOf(await client.messages.create({ model: 'default', max_tokens: 300, ...TEMPERATURE_0, messages: ASK }));
    const word = whole.split(' ')[2]!;
    const message = await client.messages.stream({ model: 'default', max_tokens: 300, ...TEMPERATURE_0, stop_sequences: [` ${word} `], messages: ASK }).finalMessage();
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe(` ${word} `);
  });
});

describe('tools', () => {
  it('runs a tool-use loop: tool_use with input valid against its schema, then text after the tool_result', async () => {
    const first = await client.messages.create({ model: 'default', max_tokens: 300, tools: TOOLS, tool_choice: { type: 'any', disable_parallel_tool_use: true }, messages: ASK });
    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(uses).toHaveLength(1);
    const use = uses[0]!;
    expect(use.id).toMatch(/^toolu_/);
    expectValid(use.name === 'get_weather' ? WEATHER_SCHEMA : TOOLS[1]!.input_schema, use.input);

    const second = await client.messages.create({
      model: 'default', max_tokens: 300, tools: TOOLS,
      messages: [...ASK, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 24 °C.' }] }],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content.every((block) => block.type === 'text')).toBe(true);
    expect(textOf(second).length).toBeGreaterThan(0);
  });

  it('calls the tool tool_choice names, streamed, with its input parsed by the SDK', async () => {
    const stream = client.messages.stream({ model: 'default', max_tokens: 300, tools: TOOLS, tool_choice: { type: 'tool', name: 'get_weather' }, messages: ASK });
    const json: string[] = [];
    stream.on('inputJson', (partial) => json.push(partial));
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    const use = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use')!;
    expect(use.name).toBe('get_weather');
    expectValid(WEATHER_SCHEMA, use.input);
    expect(json.length).toBeGreaterThan(1);
  });

  it('answers in text with tool_choice none, and gives JSON for output_config.format', async () => {
    const none = await client.messages.create({ model: 'default', max_tokens: 100, tools: TOOLS, tool_choice: { type: 'none' }, messages: ASK });
    expect(none.content.map((block) => block.type)).toEqual(['text']);
    const formatted = await client.messages.create({ model: 'default', max_tokens: 300, output_config: { format: { type: 'json_schema', schema: WEATHER_SCHEMA } }, messages: ASK });
    expectValid(WEATHER_SCHEMA, JSON.parse(textOf(formatted)));
  });
});

describe('countTokens and models', () => {
  it('counts a prompt with tools', async () => {
    const plain = await client.messages.countTokens({ model: 'default', messages: ASK });
    const withTools = await client.messages.countTokens({ model: 'default', messages: ASK, tools: TOOLS });
    expect(plain.input_tokens).toBeGreaterThan(0);
    expect(withTools.input_tokens).toBeGreaterThan(plain.input_tokens);
  });

  it('lists and retrieves the models in Anthropic\'s shape, and keeps the OpenAI shape without anthropic-version', async () => {
    const models: Anthropic.ModelInfo[] = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id).sort()).toEqual(['auto', 'default', 'fast', 'hrllm', 'pro']);
    for (const model of models) {
      expect(model.type).toBe('model');
      expect(model.display_name).toBe(model.id);
      expect(Number.isNaN(Date.parse(model.created_at))).toBe(false);
    }
    const pro = await client.models.retrieve('pro');
    expect(pro).toMatchObject({ id: 'pro', type: 'model', max_tokens: 2048 });
    const openai = await (await fetch(`${gateway.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(openai.object).toBe('list');
    expect(openai.data[0].object).toBe('model');
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe('keys and errors', () => {
  it('takes the key as x-api-key as well as a bearer token', async () => {
    const viaHeader = new Anthropic({ baseURL: gateway.origin, maxRetries: 0, apiKey: null, defaultHeaders: { 'x-api-key': key } });
    const message = await viaHeader.messages.create({ model: 'fast', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.type).toBe('message');
    const models = await viaHeader.models.list();
    expect(models.data.length).toBe(5);
  });

  it('tells a client without a usable key which headers carry one, in Anthropic\'s shape', async () => {
    const post = (headers: Record<string, string>) => fetch(`${gateway.origin}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers }, body: '{}' });
    const none = await post({});
    expect(none.status).toBe(401);
    const noneBody = await none.json();
    expect(noneBody).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(noneBody.error.message).toContain('x-api-key: sk_munja_');
    expect(noneBody.error.message).toContain('Authorization: Bearer');
    const basic = await (await post({ authorization: 'Basic abc' })).json();
    expect(basic.error.message).toMatch(/Bearer.*x-api-key/);
    // The chat endpoint's own words are unchanged.
    const chat = await (await fetch(`${gateway.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json();
    expect(chat.error.message).not.toContain('x-api-key');
  });

  it('answers unknown paths and methods under /v1/messages in Anthropic\'s shape', async () => {
    const headers = { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    const batches = await fetch(`${gateway.origin}/v1/messages/batches`, { headers });
    expect(batches.status).toBe(404);
    expect(await batches.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const get = await fetch(`${gateway.origin}/v1/messages`, { headers });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    // Elsewhere the API's own shape.
    expect(await (await fetch(`${gateway.baseURL}/nothing`)).json()).toMatchObject({ error: { code: 'unknown_route' } });
    expect(await (await fetch(`${gateway.origin}/v1/messagesx`)).json()).toMatchObject({ error: { code: 'unknown_route' } });
  });

  it('answers in Anthropic\'s error shape with the statuses of the rest of the API', async () => {
    const bad = new Anthropic({ apiKey: 'sk_munja_notarealkey', baseURL: gateway.origin, maxRetries: 0 });
    const unauthorized = await bad.messages.create({ model: 'fast', max_tokens: 5, messages: ASK }).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauthorized as APIError).type).toBe('authentication_error');
    expect((unauthorized as APIError).requestID).toMatch(/^req_/);
    await expect(bad.models.list()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);

    const notFound = await client.messages.create({ model: 'nope', max_tokens: 5, messages: ASK }).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(Anthropic.NotFoundError);
    expect((notFound as APIError).type).toBe('not_found_error');

    const noMaxTokens = await client.messages.create({ model: 'fast', messages: ASK } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((error: unknown) => error);
    expect(noMaxTokens).toBeInstanceOf(Anthropic.BadRequestError);
    expect((noMaxTokens as APIError).type).toBe('invalid_request_error');
    expect((noMaxTokens as APIError).apiMessage).toMatch(/^max_tokens: /);
    const badBlock = await client.messages.create({ model: 'fast', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'text' } as Anthropic.TextBlockParam] }] }).catch((error: unknown) => error);
    expect((badBlock as APIError).apiMessage).toMatch(/^messages\.0\.content\.0\.text: /);
    const image = await client.messages.create({
      model: 'fast', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }],
    }).catch((error: unknown) => error);
    expect(image).toBeInstanceOf(Anthropic.BadRequestError);
    expect((image as APIError).apiMessage).toMatch(/^messages\.0\.content\.0: /);
  });

  it('refuses a body over the size limit with 413 request_too_large', async () => {
    const error = await client.messages.create({ model: 'fast', max_tokens: 5, messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(413);
    expect((error as APIError).type).toBe('request_too_large');
  });

  it('refuses a model outside the key\'s scope with 403 and a key over its limit with 429 and Retry-After', async () => {
    const { key: limitedKey } = await gateway.createKey({ accountEmail: 'limited@example.com', rpm: 1, models: ['fast'] });
    const limited = new Anthropic({ apiKey: limitedKey, baseURL: gateway.origin, maxRetries: 0 });
    await expect(limited.messages.create({ model: 'pro', max_tokens: 5, messages: ASK })).rejects.toBeInstanceOf(Anthropic.PermissionDeniedError);
    await limited.messages.create({ model: 'fast', max_tokens: 5, messages: ASK });
    const error = await limited.messages.create({ model: 'fast', max_tokens: 5, messages: ASK }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error as APIError).type).toBe('rate_limit_error');
    expect(Number((error as APIError).headers?.get('retry-after'))).toBeGreaterThan(0);
    // count_tokens takes from the same request limit.
    await expect(limited.messages.countTokens({ model: 'fast', messages: ASK })).rejects.toBeInstanceOf(Anthropic.RateLimitError);
  });
});
