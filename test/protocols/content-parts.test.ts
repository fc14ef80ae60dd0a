// Text-part arrays on the built-in engine, for a model that opts in (supports.contentParts): the
// parts SDKs send back (with annotations, refusal and role keys) are read as text, an image part is
// refused with the exact param, and the Agents SDK's second turn from result.history round-trips in
// its chat-completions mode. On the defaults, content stays a string (rule 4).
import { Agent, OpenAIChatCompletionsModel, Runner, setTracingDisabled } from '@openai/agents';
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  setTracingDisabled(true);
  gateway = await startGateway({ ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, parts: { local: { language: 'en' }, supports: { contentParts: true } } } });
  const { key } = await gateway.createKey();
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(() => gateway.close());

const CONVERSATION = [
  { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: ' there' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Hi.', annotations: [] }, { type: 'refusal', refusal: 'Not that.' }], refusal: null },
  { role: 'user', content: [{ type: 'text', text: 'Again?', role: 'user' }] },
];

describe('content parts on the built-in engine', () => {
  it('answers a conversation of text parts for a model that opts in, counting them as text', async () => {
    const withParts = await client.chat.completions.create({ model: 'parts', messages: CONVERSATION as never, seed: 1 });
    expect(withParts.choices[0]?.message.content?.length).toBeGreaterThan(0);
    const asText = await client.chat.completions.create({
      model: 'parts',
      seed: 1,
      messages: [{ role: 'user', content: 'Hello there' }, { role: 'assistant', content: 'Hi.Not that.' }, { role: 'user', content: 'Again?' }],
    });
    expect(withParts.usage?.prompt_tokens).toBe(asText.usage?.prompt_tokens);
  });

  it('refuses an image part, naming it', async () => {
    const error = await client.chat.completions.create({
      model: 'parts',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
    }).catch((caught: unknown) => caught) as APIError;
    expect([error.status, error.code, error.param]).toEqual([400, 'unsupported_parameter', 'messages[0].content[1]']);
  });

  it('keeps content a string on the defaults', async () => {
    const error = await client.chat.completions.create({ model: 'fast', messages: CONVERSATION as never }).catch((caught: unknown) => caught) as APIError;
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_content', 'messages[0].content']);
  });
});

describe('@openai/agents in its chat-completions mode', () => {
  const agent = (model: string) => new Agent({ name: 'Talker', instructions: 'Talk.', model: new OpenAIChatCompletionsModel(client, model) });

  it('takes a second turn from result.history on a model that takes parts', async () => {
    const runner = new Runner({ tracingDisabled: true });
    const first = await runner.run(agent('parts'), 'Hello!');
    const second = await runner.run(agent('parts'), [...first.history, { role: 'user', content: 'And again?' }]);
    expect(typeof second.finalOutput).toBe('string');
    expect((second.finalOutput as string).length).toBeGreaterThan(0);
  });

  it('gets the documented 400 for that second turn on a model that does not', async () => {
    const runner = new Runner({ tracingDisabled: true });
    const first = await runner.run(agent('fast'), 'Hello!');
    const second = await runner.run(agent('fast'), [...first.history, { role: 'user', content: 'And again?' }]).catch((caught: unknown) => caught);
    expect(second).toBeInstanceOf(Error);
    expect(String((second as Error).message)).toMatch(/must be a string/);
  });
});
