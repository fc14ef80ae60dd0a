// The OpenAI Agents SDK in its default mode (the Responses API) against the built-in engine: a tool
// run, streaming, structured output, a second turn from result.history, and a handoff.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let runner: Runner;

beforeAll(async () => {
  setTracingDisabled(true);
  gateway = await startGateway();
  const { key } = await gateway.createKey();
  const openAIClient = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
  runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient, useResponses: true }), tracingDisabled: true });
});
afterAll(() => gateway.close());

function weatherTool(calls: string[]) {
  return tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `Sunny in ${city}`;
    },
  });
}

describe('@openai/agents (Responses API)', () => {
  it('runs a tool and answers with its result', async () => {
    const calls: string[] = [];
    const agent = new Agent({ name: 'Weather', instructions: 'Use the tool.', model: 'fast', tools: [weatherTool(calls)], modelSettings: { toolChoice: 'required' }, toolUseBehavior: 'run_llm_again', resetToolChoice: true });
    const result = await runner.run(agent, 'Weather in Split?');
    expect(calls.length).toBeGreaterThan(0);
    expect(typeof result.finalOutput).toBe('string');
    expect((result.finalOutput as string).length).toBeGreaterThan(0);
  });

  it('streams a run', async () => {
    const agent = new Agent({ name: 'Talker', instructions: 'Talk.', model: 'fast' });
    const result = await runner.run(agent, 'Say something.', { stream: true });
    let text = '';
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect(text.length).toBeGreaterThan(0);
    expect(result.finalOutput).toBe(text);
  });

  it('returns structured output of its output type', async () => {
    const Person = z.object({ name: z.string(), age: z.number().int() });
    const agent = new Agent({ name: 'Maker', instructions: 'Make up a person.', model: 'fast', outputType: Person });
    const result = await runner.run(agent, 'A person, please.');
    expect(Person.parse(result.finalOutput)).toEqual(result.finalOutput);
  });

  it('takes a second turn built from result.history', async () => {
    const calls: string[] = [];
    const agent = new Agent({ name: 'Weather', instructions: 'Use the tool.', model: 'fast', tools: [weatherTool(calls)] });
    const first = await runner.run(agent, 'Weather in Split?');
    const second = await runner.run(agent, [...first.history, { role: 'user', content: 'And tomorrow?' }]);
    expect(typeof second.finalOutput).toBe('string');
    expect(second.history.length).toBeGreaterThan(first.history.length);
  });

  it('hands off to another agent', async () => {
    const specialist = new Agent({ name: 'Specialist', instructions: 'Answer.', model: 'fast' });
    const triage = new Agent({ name: 'Triage', instructions: 'Hand off.', model: 'fast', handoffs: [specialist], modelSettings: { toolChoice: 'required' } });
    const result = await runner.run(triage, 'Help me.');
    expect(result.lastAgent?.name).toBe('Specialist');
    expect(typeof result.finalOutput).toBe('string');
  });
});
