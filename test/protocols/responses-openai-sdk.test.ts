// POST /v1/responses with the official openai SDK, unchanged: the built-in engine and a relayed
// model (through the vLLM-like mock upstream, so the chat translation is what it speaks).
import OpenAI, { APIError } from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { FunctionTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({ ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } } });
  ({ key } = await gateway.createKey());
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe.each(['fast', 'up'])('responses.create on %s', (model) => {
  it('answers a string input with a message, its text and usage', async () => {
    const response = await client.responses.create({ model, input: 'Say something.', store: false });
    expect(response.id).toMatch(/^resp_/);
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.model).toBe(model);
    expect(response.output).toHaveLength(1);
    const message = response.output[0]!;
    expect(message.type).toBe('message');
    expect(response.output_text.length).toBeGreaterThan(0);
    const usage = response.usage!;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
  });

  it('takes instructions and items (developer, user parts, an earlier assistant reply)', async () => {
    const response = await client.responses.create({
      model,
      store: false,
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }, { type: 'input_text', text: ' there' }] },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Hi.', annotations: [] }] },
        { role: 'user', content: 'And now?' },
      ],
    });
    expect(response.status).toBe('completed');
    expect(response.instructions).toBe('Be brief.');
    expect(response.output_text.length).toBeGreaterThan(0);
  });

  it('streams the events the SDK assembles into the same response', async () => {
    const stream = client.responses.stream({ model, input: 'Say something.', store: false });
    const types: string[] = [];
    const sequence: number[] = [];
    let deltas = '';
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
    }
    const final = await stream.finalResponse();
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(sequence).toEqual(sequence.map((_, index) => index));
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(deltas);
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('calls a function tool, then answers from its output', async () => {
    const first = await client.responses.create({ model, input: 'Weather in Split?', tools: [WEATHER], tool_choice: 'required', store: false });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.name).toBe('get_weather');
      expect(typeof JSON.parse(call.arguments).city).toBe('string');
    }
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'Weather in Split?' },
      ...first.output as ResponseInputItem[],
      ...calls.map((call) => ({ type: 'function_call_output' as const, call_id: call.call_id, output: '{"celsius": 24}' })),
    ];
    const second = await client.responses.create({ model, input, tools: [WEATHER], store: false });
    expect(second.status).toBe('completed');
    expect(second.output_text.length).toBeGreaterThan(0);
  });

  it('streams a function call as its item and argument events', async () => {
    const stream = client.responses.stream({ model, input: 'Weather in Split?', tools: [WEATHER], tool_choice: 'required', store: false });
    const types = new Set<string>();
    const argumentDeltas = new Map<string, string>();
    for await (const event of stream) {
      types.add(event.type);
      if (event.type === 'response.function_call_arguments.delta') argumentDeltas.set(event.item_id, (argumentDeltas.get(event.item_id) ?? '') + event.delta);
    }
    const final = await stream.finalResponse();
    const calls = final.output.filter((item) => item.type === 'function_call');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.arguments).toBe(argumentDeltas.get(call.id!));
    expect(types).toContain('response.function_call_arguments.done');
  });

  it('parses a structured output with a zod format', async () => {
    const Person = z.object({ name: z.string(), age: z.number().int() });
    const response = await client.responses.parse({ model, input: 'Make up a person.', text: { format: zodTextFormat(Person, 'person') }, store: false });
    const parsed = Person.parse(response.output_parsed);
    expect(typeof parsed.name).toBe('string');
  });
});

describe('responses on the built-in engine', () => {
  it('ends incomplete at max_output_tokens, saying why', async () => {
    const response = await client.responses.create({ model: 'fast', input: 'Say something long.', max_output_tokens: 3, store: false });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details?.reason).toBe('max_output_tokens');
    expect(response.usage?.output_tokens).toBe(3);
  });

  it('takes built-in tools out of the offer and names them; forcing one is a 400', async () => {
    const { data, response } = await client.responses.create({
      model: 'fast', input: 'Hi', store: false, tools: [WEATHER, { type: 'web_search' }],
    }).withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-munja-omitted-tools')).toBe('web_search');
    const forced = await client.responses.create({ model: 'fast', input: 'Hi', store: false, tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } as never }).catch((error: unknown) => error);
    expect(forced).toBeInstanceOf(APIError);
    expect((forced as APIError).status).toBe(400);
    expect((forced as APIError).param).toBe('tool_choice');
  });

  it('refuses what it cannot honour with a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ background: true }, 'background', 'unsupported_parameter'],
      [{ max_output_tokens: 1_000_000 }, 'max_output_tokens', 'invalid_value'],
      [{ include: ['message.output_text.logprobs'] }, 'include[0]', 'unsupported_parameter'],
      [{ frequency: 1 }, 'frequency', 'unknown_parameter'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/y.png' }] }] }, 'input[0].content[0]', 'unsupported_parameter'],
    ];
    for (const [fields, param, code] of cases) {
      const error = await client.responses.create({ model: 'fast', input: 'Hi', store: false, ...fields } as never).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(fields)).toBeInstanceOf(APIError);
      expect([(error as APIError).status, (error as APIError).param, (error as APIError).code]).toEqual([400, param, code]);
    }
  });

  it('refuses a bad key and an unknown model in the API error shape', async () => {
    const stranger = new OpenAI({ apiKey: 'sk_munja_not_a_key', baseURL: gateway.baseURL, maxRetries: 0 });
    expect((await stranger.responses.create({ model: 'fast', input: 'Hi' }).catch((error: unknown) => error) as APIError).status).toBe(401);
    const missing = await client.responses.create({ model: 'nope', input: 'Hi' }).catch((error: unknown) => error) as APIError;
    expect([missing.status, missing.code, missing.param]).toEqual([404, 'model_not_found', 'model']);
  });
});

describe('stored responses', () => {
  it('continues from previous_response_id, and retrieves, lists the input of, and deletes a response', async () => {
    const first = await client.responses.create({ model: 'fast', input: 'My name is Ana.' });
    expect((first as unknown as { store: boolean }).store).toBe(true);
    const second = await client.responses.create({ model: 'fast', input: 'What is my name?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(second.status).toBe('completed');
    // The conversation came along: the prompt counts the earlier turn too.
    const alone = await client.responses.create({ model: 'fast', input: 'What is my name?', store: false });
    expect(second.usage!.input_tokens).toBeGreaterThan(alone.usage!.input_tokens);

    const retrieved = await client.responses.retrieve(first.id);
    expect(retrieved.id).toBe(first.id);
    expect(retrieved.output_text).toBe(first.output_text);
    const items = await client.responses.inputItems.list(second.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is my name?' }] });

    const deleted = await client.responses.delete(first.id) as unknown;
    expect(deleted).toEqual({ id: first.id, object: 'response.deleted', deleted: true });
    const gone = await client.responses.retrieve(first.id).catch((error: unknown) => error) as APIError;
    expect([gone.status, gone.code]).toEqual([404, 'response_not_found']);
    const orphan = await client.responses.create({ model: 'fast', input: 'Hi', previous_response_id: first.id }).catch((error: unknown) => error) as APIError;
    expect([orphan.status, orphan.param]).toEqual([404, 'previous_response_id']);
  });

  it('keeps a streamed response for a follow-up sent at once', async () => {
    const stream = client.responses.stream({ model: 'fast', input: 'My name is Ana.' });
    const final = await stream.finalResponse();
    const next = await client.responses.create({ model: 'fast', input: 'Again?', previous_response_id: final.id, store: false });
    expect(next.status).toBe('completed');
  });

  it('keeps nothing for store: false, and nothing of one account is another account\'s', async () => {
    const unstored = await client.responses.create({ model: 'fast', input: 'Hi', store: false });
    expect((await client.responses.retrieve(unstored.id).catch((error: unknown) => error) as APIError).status).toBe(404);
    const stored = await client.responses.create({ model: 'fast', input: 'Hi' });
    const other = await gateway.createKey({ accountEmail: 'other@example.com', createAccount: true });
    const otherClient = new OpenAI({ apiKey: other.key, baseURL: gateway.baseURL, maxRetries: 0 });
    expect((await otherClient.responses.retrieve(stored.id).catch((error: unknown) => error) as APIError).status).toBe(404);
    expect((await otherClient.responses.delete(stored.id).catch((error: unknown) => error) as APIError).status).toBe(404);
    expect((await otherClient.responses.create({ model: 'fast', input: 'Hi', previous_response_id: stored.id }).catch((error: unknown) => error) as APIError).status).toBe(404);
    expect((await client.responses.retrieve(stored.id)).id).toBe(stored.id);
  });
});
