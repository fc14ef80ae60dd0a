// Tool calling and structured outputs with the official openai SDK, against the local engine on the
// default settings: tools, streaming tool deltas, runTools, parse with a zod schema, the follow-up turn.
import OpenAI, { APIError } from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { expectValid } from '../helpers/schema-validator.ts';
import { chunksOf } from '../helpers/sse.ts';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway();
  const { key } = await gateway.createKey();
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(() => gateway.close());

const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2, maxLength: 40 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    when: { type: 'string', format: 'date-time' },
    where: { type: 'object', properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lon: { type: 'number', minimum: -180, maximum: 180 } }, required: ['lat', 'lon'], additionalProperties: false },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
    notify: { type: ['string', 'null'], format: 'email' },
  },
  required: ['city', 'unit', 'where', 'tags'],
  additionalProperties: false,
};
const TIME_PARAMETERS = { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] };
const TOOLS: ChatCompletionFunctionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: WEATHER_PARAMETERS } },
  { type: 'function', function: { name: 'get_time', parameters: TIME_PARAMETERS } },
];
const SCHEMAS: Record<string, Record<string, unknown>> = { get_weather: WEATHER_PARAMETERS, get_time: TIME_PARAMETERS };
const ASK = [{ role: 'user' as const, content: 'What is the weather in Zagreb?' }];

describe('openai SDK: tool calls from the local engine', () => {
  it('calls a tool with tool_choice "required": ids, names, arguments valid against the schema, finish_reason tool_calls', async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const completion = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', seed });
      const choice = completion.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      const calls = choice.message.tool_calls ?? [];
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        if (call.type !== 'function') throw new Error('not a function call');
        expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
        expectValid(SCHEMAS[call.function.name]!, JSON.parse(call.function.arguments));
      }
      expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    }
  });

  it('is deterministic per seed', async () => {
    const ask = () => client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', seed: 42 });
    const [first, second] = await Promise.all([ask(), ask()]);
    expect(second.choices[0]!.message.tool_calls).toEqual(first.choices[0]!.message.tool_calls);
  });

  it('calls exactly the named function', async () => {
    for (const seed of [1, 2, 3]) {
      const completion = await client.chat.completions.create({
        model: 'default', messages: ASK, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_time' } }, seed,
      });
      const calls = completion.choices[0]!.message.tool_calls!;
      expect(calls).toHaveLength(1);
      expect(calls[0]!.type === 'function' && calls[0]!.function.name).toBe('get_time');
    }
  });

  it('answers in text with tool_choice "none"', async () => {
    const completion = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'none', seed: 1 });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(completion.choices[0]!.message.content!.length).toBeGreaterThan(0);
  });

  it('with "auto", calls a tool on some seeds and answers on others', async () => {
    const reasons = new Set<string>();
    for (let seed = 1; seed <= 12; seed++) {
      const completion = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, seed });
      reasons.add(completion.choices[0]!.finish_reason);
    }
    expect(reasons).toEqual(new Set(['tool_calls', 'stop']));
  });

  it('honours parallel_tool_calls', async () => {
    const counts = async (parallel: boolean) => {
      const found: number[] = [];
      for (let seed = 1; seed <= 15; seed++) {
        const completion = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', parallel_tool_calls: parallel, seed });
        found.push(completion.choices[0]!.message.tool_calls!.length);
      }
      return found;
    };
    expect(new Set(await counts(false))).toEqual(new Set([1]));
    expect(Math.max(...(await counts(true)))).toBeGreaterThan(1);
  });

  it('counts the tool definitions in prompt_tokens', async () => {
    const plain = await client.chat.completions.create({ model: 'default', messages: ASK, seed: 1 });
    const withTools = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'none', seed: 1 });
    expect(withTools.usage!.prompt_tokens).toBeGreaterThan(plain.usage!.prompt_tokens + 50);
  });

  it('streams OpenAI\'s tool-call delta sequence, with usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', parallel_tool_calls: false, seed: 3, stream: true, stream_options: { include_usage: true },
    });
    const deltas: Array<NonNullable<OpenAI.Chat.Completions.ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number]> = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        deltas.push(...(choice.delta.tool_calls ?? []));
        finish = choice.finish_reason ?? finish;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    const [head, ...fragments] = deltas;
    expect(head).toMatchObject({ index: 0, type: 'function', function: { name: expect.any(String), arguments: '' } });
    expect(head!.id).toMatch(/^call_/);
    expect(fragments.length).toBeGreaterThan(0);
    for (const fragment of fragments) {
      expect(fragment.index).toBe(0);
      expect(fragment.id).toBeUndefined();
      expect(fragment.function?.name).toBeUndefined();
    }
    const args = JSON.parse(fragments.map((fragment) => fragment.function!.arguments).join(''));
    expectValid(SCHEMAS[head!.function!.name!]!, args);
    expect(finish).toBe('tool_calls');
    expect(usage!.completion_tokens).toBeGreaterThan(0);

    // The same request without streaming gives the same call.
    const json = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', parallel_tool_calls: false, seed: 3 });
    const call = json.choices[0]!.message.tool_calls![0]!;
    expect(call.id).toBe(head!.id);
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual(args);
    expect(json.usage).toEqual(usage);
  });

  it('frames the tool-call stream as OpenAI does, chunk by chunk', async () => {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_time' } }, seed: 1, stream: true, stream_options: { include_usage: true } }),
    });
    const chunks = chunksOf(await response.text());
    const deltas = chunks.slice(0, -1).map((chunk) => chunk.choices[0]);
    expect(deltas[0]).toEqual({ index: 0, delta: { role: 'assistant', content: null }, logprobs: null, finish_reason: null });
    expect(deltas[1].delta).toEqual({ tool_calls: [{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_time', arguments: '' } }] });
    for (const fragment of deltas.slice(2, -1)) expect(Object.keys(fragment.delta.tool_calls[0])).toEqual(['index', 'function']);
    expect(deltas.at(-1)).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number) } });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it('the SDK\'s stream helper assembles the streamed tool calls', async () => {
    const stream = client.chat.completions.stream({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', seed: 9 });
    const final = await stream.finalChatCompletion();
    for (const call of final.choices[0]!.message.tool_calls!) {
      if (call.type !== 'function') throw new Error('not a function call');
      expectValid(SCHEMAS[call.function.name]!, JSON.parse(call.function.arguments));
    }
  });
});

describe('openai SDK: several choices and odd schemas', () => {
  it('streams the tool calls of several choices side by side', async () => {
    const stream = client.chat.completions.stream({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', n: 3, seed: 4 });
    const final = await stream.finalChatCompletion();
    expect(final.choices).toHaveLength(3);
    for (const choice of final.choices) {
      expect(choice.finish_reason).toBe('tool_calls');
      for (const call of choice.message.tool_calls!) {
        if (call.type !== 'function') throw new Error('not a function call');
        expectValid(SCHEMAS[call.function.name]!, JSON.parse(call.function.arguments));
      }
    }
  });

  it('refuses parameters that are not JSON Schema, naming them', async () => {
    const error = await client.chat.completions.create({
      model: 'default', messages: ASK, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'strnig' } } } } }],
    }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).code).toBe('invalid_value');
    expect((error as APIError).param).toBe('tools[0].function.parameters');
  });

  it('refuses parameters that do not describe an object', async () => {
    const error = await client.chat.completions.create({
      model: 'default', messages: ASK, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }], tool_choice: 'required',
    }).catch((e: unknown) => e);
    expect((error as APIError).code).toBe('unsupported_parameter');
    expect((error as APIError).param).toBe('tools[0].function.parameters.type');
  });
});

describe('openai SDK: the follow-up turn', () => {
  it('answers in text after the tool results (tool_choice auto)', async () => {
    const first = await client.chat.completions.create({ model: 'default', messages: ASK, tools: TOOLS, tool_choice: 'required', seed: 2 });
    const message = first.choices[0]!.message;
    const results = message.tool_calls!.map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: '{"temperature": 21}' }));
    const second = await client.chat.completions.create({ model: 'default', messages: [...ASK, message, ...results], tools: TOOLS, seed: 2 });
    expect(second.choices[0]!.finish_reason).toBe('stop');
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
  });

  it('refuses a tool result whose tool_call_id matches no earlier call, naming the param', async () => {
    const messages = [
      ...ASK,
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'get_time', arguments: '{"zone":"UTC"}' } }] },
      { role: 'tool' as const, tool_call_id: 'call_2', content: '12:00' },
    ];
    const error = await client.chat.completions.create({ model: 'default', messages, tools: TOOLS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).code).toBe('invalid_value');
    expect((error as APIError).param).toBe('messages[2].tool_call_id');
  });

  it('runTools runs the loop: the engine calls the function, then answers with its result in hand', async () => {
    const zones: string[] = [];
    const tool = zodFunction({
      name: 'get_time',
      parameters: z.object({ zone: z.string() }),
      function: (args) => {
        zones.push(args.zone);
        return '12:00';
      },
    });
    // Under "auto" the engine calls a tool on some seeds and answers at once on others.
    for (let seed = 1; seed <= 10 && zones.length === 0; seed++) {
      const runner = client.chat.completions.runTools({ model: 'default', messages: ASK, seed, tools: [tool] });
      const content = await runner.finalContent();
      expect(typeof content).toBe('string');
      expect(runner.messages.filter((message) => message.role === 'tool')).toHaveLength(zones.length);
    }
    expect(zones.length).toBeGreaterThan(0);
  });
});

describe('openai SDK: structured outputs from the local engine', () => {
  it('chat.completions.parse with a zod schema', async () => {
    const Event = z.object({
      name: z.string(),
      date: z.string(),
      attendees: z.array(z.object({ name: z.string(), email: z.email() })),
      kind: z.enum(['meeting', 'party']),
      budget: z.number().nullable(),
    });
    for (const seed of [1, 2, 3]) {
      const completion = await client.chat.completions.parse({ model: 'default', messages: ASK, response_format: zodResponseFormat(Event, 'event'), seed });
      const parsed = completion.choices[0]!.message.parsed;
      expect(Event.parse(parsed)).toEqual(parsed);
    }
  });

  it('json_object gives a JSON object', async () => {
    const completion = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'Reply in JSON.' }], response_format: { type: 'json_object' }, seed: 5 });
    const value: unknown = JSON.parse(completion.choices[0]!.message.content!);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  });

  it('refuses a schema outside the supported subset, naming the construct', async () => {
    const error = await client.chat.completions.create({
      model: 'default',
      messages: ASK,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['code'] } } },
    }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).code).toBe('unsupported_parameter');
    expect((error as APIError).param).toBe('response_format.json_schema.schema.properties.code.pattern');
  });

  it('leaves out an optional property outside the subset, and answers', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string' }, code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['name'], additionalProperties: false };
    for (const seed of [1, 2, 3]) {
      const completion = await client.chat.completions.create({
        model: 'default', messages: ASK, seed, response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
      });
      const value = JSON.parse(completion.choices[0]!.message.content!);
      expectValid(schema, value);
      expect(value).not.toHaveProperty('code');
    }
  });

  it('keeps logprobs unsupported, and content parts refused on the default settings', async () => {
    const logprobs = await client.chat.completions.create({ model: 'default', messages: ASK, logprobs: true }).catch((e: unknown) => e);
    expect((logprobs as APIError).code).toBe('unsupported_parameter');
    const parts = await client.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }).catch((e: unknown) => e);
    expect((parts as APIError).status).toBe(400);
    expect((parts as APIError).code).toBe('invalid_content');
    expect((parts as APIError).param).toBe('messages[0].content');
  });
});
