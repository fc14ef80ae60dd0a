// The official openai SDK, unchanged, pointed at {origin}/v1.
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startGateway();
  const { key } = await gateway.createKey();
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(() => gateway.close());

describe('openai SDK', () => {
  it('lists the five documented models', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id).sort()).toEqual(['auto', 'default', 'fast', 'hrllm', 'pro']);
    for (const model of models) {
      expect(model.object).toBe('model');
      expect(model.owned_by).toBe('munja');
    }
    const one = await client.models.retrieve('hrllm');
    expect(one.id).toBe('hrllm');
  });

  it('creates a completion', async () => {
    const completion = await client.chat.completions.create({
      model: 'auto',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say something.' }],
      seed: 7,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('auto');
    expect(completion.choices[0]?.message.role).toBe('assistant');
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const usage = completion.usage!;
    expect(usage.prompt_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it('is deterministic for a seed and honours max_tokens', async () => {
    const ask = (seed: number) => client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'Hi' }], seed, temperature: 1 });
    const [a, b, c] = await Promise.all([ask(1), ask(1), ask(2)]);
    expect(a.choices[0]?.message.content).toBe(b.choices[0]?.message.content);
    expect(a.choices[0]?.message.content).not.toBe(c.choices[0]?.message.content);
    const short = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3 });
    expect(short.choices[0]?.finish_reason).toBe('length');
    expect(short.usage?.completion_tokens).toBe(3);
  });

  it('streams, with the usage chunk when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'hrllm',
      messages: [{ role: 'user', content: 'Pozdrav!' }],
      stream: true,
      stream_options: { include_usage: true },
      seed: 3,
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finish = chunk.choices[0].finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(finish).toBe('stop');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    const whole = await client.chat.completions.create({ model: 'hrllm', messages: [{ role: 'user', content: 'Pozdrav!' }], seed: 3 });
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(usage).toEqual(whole.usage);
  });

  it('maps errors to the SDK error classes', async () => {
    const bad = new OpenAI({ apiKey: 'sk_munja_notarealkey', baseURL: gateway.baseURL, maxRetries: 0 });
    await expect(bad.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(client.chat.completions.create({ model: 'fast', messages: [] })).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    const notFound = await client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect((notFound as APIError).code).toBe('model_not_found');
    expect((notFound as APIError).requestID).toMatch(/^req_/);

    const { key } = await gateway.createKey({ accountEmail: 'limited@example.com', rpm: 1, models: ['fast'] });
    const limited = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    await expect(limited.chat.completions.create({ model: 'pro', messages: [{ role: 'user', content: 'x' }] }))
      .rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    await limited.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] });
    const limitedError = await limited.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
    expect(limitedError).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limitedError as APIError).code).toBe('rate_limit_exceeded');
  });
});
