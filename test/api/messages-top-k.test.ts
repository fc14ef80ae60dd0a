// `top_k` on /v1/messages reaches a model whose every upstream speaks the Messages API (the request
// goes to it as sent), and is a 400 naming it for a model served through the chat translation.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockUpstream();
  const config: ConfigFile = {
    ...FAST_TEST_CONFIG,
    models: {
      ...FAST_TEST_CONFIG.models,
      native: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model', api: ['chat', 'messages'] }] },
      chatonly: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] },
    },
  };
  gateway = await startGateway(config);
  const { key } = await gateway.createKey();
  client = new Anthropic({ baseURL: gateway.origin, apiKey: key, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.close();
  await mock.close();
});

/** `top_k` is Anthropic's sampling field; this SDK's types leave it out, so the body is typed by hand. */
function withTopK(model: string): Anthropic.MessageCreateParamsNonStreaming {
  return { model, max_tokens: 50, top_k: 7, messages: [{ role: 'user', content: 'hi' }] } as Anthropic.MessageCreateParamsNonStreaming;
}

describe('top_k on /v1/messages', () => {
  it('reaches a model whose upstreams speak the Messages API, as the client sent it', async () => {
    const message = await client.messages.create(withTopK('native'));
    expect(message.type).toBe('message');
    const seen = mock.requests.at(-1)!;
    expect(seen.path).toMatch(/\/messages$/);
    expect(seen.body).toMatchObject({ model: 'mock-model', top_k: 7 });
  });

  it('is a 400 naming it for the built-in engine and for a chat-only upstream', async () => {
    for (const model of ['fast', 'chatonly']) {
      const error = await client.messages.create(withTopK(model)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toContain('top_k');
    }
  });
});
