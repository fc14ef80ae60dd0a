// A reasoning model behind a chat upstream (vLLM's `reasoning`, older servers' `reasoning_content`):
// its thinking reaches Responses clients as a reasoning item and Messages clients as a thinking
// block when they asked for thinking, streamed and in JSON, through the official SDKs. The text
// after it is the reply, and a later turn is not given the reasoning back.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chunkEvent, contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
const bodies: unknown[] = [];
const REASONING = 'The user greets. Answer "hi".';

const thinkingEvent = (field: string, text: string) => chunkEvent(`{"index":0,"delta":{"${field}":${JSON.stringify(text)}},"finish_reason":null}`);
const USAGE = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"up-model","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":7}}\n\n';

/** Streams or answers in JSON as asked, thinking under `field` first. */
function reasoningModel(field: 'reasoning' | 'reasoning_content') {
  upstream.answer = (response, request, text) => {
    const body = JSON.parse(text) as { stream?: boolean };
    bodies.push(body);
    if (body.stream === true) {
      stream(thinkingEvent(field, 'The user greets. '), thinkingEvent(field, 'Answer "hi".'), contentEvent('Hi'), contentEvent(' there.'), FINISH_EVENT, USAGE, 'data: [DONE]\n\n')(response, request, text);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'up-model', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there.', [field]: REASONING }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 7 } }));
  };
}

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const config: ConfigFile = { ...FAST_TEST_CONFIG, models: { ...FAST_TEST_CONFIG.models, thinker: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] } } };
  gateway = await startGateway(config);
  const { key } = await gateway.createKey();
  openai = new OpenAI({ baseURL: `${gateway.origin}/v1`, apiKey: key, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gateway.origin, apiKey: key, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.close();
  await upstream.close();
});


describe.each(['reasoning', 'reasoning_content'] as const)('a reasoning model (%s)', (field) => {
  beforeAll(() => reasoningModel(field));

  it('Responses: a reasoning item before the message, streamed and in JSON; the next turn is not given it', async () => {
    const reply = await openai.responses.create({ model: 'thinker', input: 'hi' });
    expect(reply.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(reply.output[0]).toMatchObject({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: REASONING }] });
    expect(reply.output_text).toBe('Hi there.');

    const events: string[] = [];
    let reasoningDeltas = '';
    const streamed = openai.responses.stream({ model: 'thinker', input: 'hi' });
    for await (const event of streamed) {
      events.push(event.type);
      if (event.type === 'response.reasoning_text.delta') reasoningDeltas += event.delta;
    }
    const final = await streamed.finalResponse();
    expect(reasoningDeltas).toBe(REASONING);
    expect(events.indexOf('response.reasoning_text.done')).toBeLessThan(events.indexOf('response.output_text.delta'));
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(final.output_text).toBe('Hi there.');

    bodies.length = 0;
    await openai.responses.create({ model: 'thinker', input: 'and again', previous_response_id: final.id });
    const messages = (bodies[0] as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages)).not.toContain('greets');
  });

  it('Messages: a thinking block when thinking is asked for, none otherwise', async () => {
    const params = { model: 'thinker', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };
    const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
    const asked = await anthropic.messages.create({ ...params, thinking });
    expect(asked.content).toEqual([{ type: 'thinking', thinking: REASONING, signature: '' }, { type: 'text', text: 'Hi there.', citations: null }]);
    const plain = await anthropic.messages.create(params);
    expect(plain.content.map((block) => block.type)).toEqual(['text']);

    const streamed = await anthropic.messages.stream({ ...params, thinking }).finalMessage();
    expect(streamed.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(streamed.content[0]).toMatchObject({ type: 'thinking', thinking: REASONING });
    expect(streamed.content[1]).toMatchObject({ type: 'text', text: 'Hi there.' });
    const plainStream = await anthropic.messages.stream(params).finalMessage();
    expect(plainStream.content.map((block) => block.type)).toEqual(['text']);
  });
});
