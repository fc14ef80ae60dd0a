// LangChain JS (`@langchain/openai`), unchanged: bindTools with a ToolMessage round trip, and
// withStructuredOutput, against the local engine and a relayed model.
import { AIMessage, type AIMessageChunk, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startGateway({ ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } } });
  ({ key } = await gateway.createKey());
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});

function chat(model: string, options: { seed?: number } = {}): ChatOpenAI {
  return new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: gateway.baseURL }, maxRetries: 0, ...options });
}

const weather = tool(async ({ city }) => `It is sunny in ${city}.`, {
  name: 'get_weather',
  description: 'The weather in a city.',
  schema: z.object({ city: z.string(), days: z.number().int().min(1).max(7) }),
});

const Person = z.object({ name: z.string(), age: z.number().int().min(0).max(120), email: z.email().nullable(), hobbies: z.array(z.string()) });

describe.each(['default', 'up'])('LangChain against %s', (model) => {
  it('bindTools: a tool call, the ToolMessage round trip, then a text answer', async () => {
    const llm = chat(model, { seed: 5 }).bindTools([weather], { tool_choice: 'get_weather' });
    const question = new HumanMessage('What is the weather in Zadar?');
    const first = await llm.invoke([question]);
    expect(first.tool_calls).toHaveLength(1);
    const call = first.tool_calls![0]!;
    expect(call.name).toBe('get_weather');
    expect(typeof call.args.city).toBe('string');
    const result = await weather.invoke(call);
    expect(result).toBeInstanceOf(ToolMessage);

    const answer = await chat(model, { seed: 5 }).bindTools([weather]).invoke([question, first, result]);
    expect(answer).toBeInstanceOf(AIMessage);
    expect(answer.tool_calls ?? []).toHaveLength(0);
    expect(typeof answer.content === 'string' && answer.content.length).toBeGreaterThan(0);
  });

  // Streamed with .stream(): invoke() with `streaming: true` then estimates tokens with js-tiktoken,
  // which downloads its tables from the network, whatever the server.
  it('bindTools while streaming gathers the tool-call chunks', async () => {
    const llm = chat(model, { seed: 6 }).bindTools([weather], { tool_choice: 'required' });
    let message: AIMessageChunk | undefined;
    for await (const chunk of await llm.stream([new HumanMessage('Weather in Pula?')])) message = message === undefined ? chunk : message.concat(chunk);
    expect(message!.tool_calls!.length).toBeGreaterThan(0);
    expect(message!.tool_calls![0]!.name).toBe('get_weather');
    expect(typeof message!.tool_calls![0]!.args.city).toBe('string');
    expect(message!.usage_metadata!.output_tokens).toBeGreaterThan(0);
  });

  // Not jsonMode: it sends json_object without the schema, which a model follows only from the prompt.
  it('withStructuredOutput returns an object valid against the zod schema', async () => {
    for (const method of [undefined, 'jsonSchema', 'functionCalling'] as const) {
      const person = await chat(model, { seed: 7 }).withStructuredOutput(Person, method === undefined ? {} : { method }).invoke('Describe a person.');
      expect(Person.parse(person)).toEqual(person);
    }
  });
});
