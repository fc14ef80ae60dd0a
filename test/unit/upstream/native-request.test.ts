import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../../src/config/config-types.ts';
import type { RequestContext } from '../../../src/http/request-context.ts';
import { buildNativeRequest, type NativeApi, type NativeRequest, nativeRequest } from '../../../src/upstream/native-request.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-exchange.ts';
import type { ChatRequestBody } from '../../../src/validation/chat-request.ts';
import { parseJsonRequest } from '../../../src/validation/parse-json-body.ts';

const upstream: UpstreamConfig = {
  baseUrl: 'http://127.0.0.1:9/api/v1', origin: 'http://127.0.0.1:9', chatPath: '/api/v1/chat/completions', responsesPath: '/api/v1/responses',
  messagesPath: '/api/v1/messages', api: ['chat', 'responses', 'messages'], model: 'up/model', apiKey: null, weight: 1, maxConnections: 1,
};

function context(anthropic: { version?: string; beta?: string } | null): RequestContext {
  return { anthropic: anthropic === null ? null : { apiKey: '', version: anthropic.version ?? '', beta: anthropic.beta ?? '' } } as RequestContext;
}

function call(native: NativeRequest, options: { stream?: boolean; upstream?: UpstreamConfig } = {}): UpstreamCall {
  return {
    client: { requestId: 'req_1', aborted: false, onAbort: null },
    streamTo: options.stream === true ? ({} as RequestContext) : null,
    translator: null,
    dispatcher: null as never,
    upstream: options.upstream ?? upstream,
    publicModel: 'fast',
    body: { model: 'fast', messages: [] } as unknown as ChatRequestBody,
    source: null,
    includeUsage: false,
    native,
    timeouts: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 2_000, responseTimeoutMs: 3_000, idleTimeoutMs: 4_000, maxEventBytes: 1024 * 1024 },
    headers: {},
    asBytes: true,
    cachedInputPriced: false,
  };
}

function native(api: NativeApi, text: string, anthropic: { version?: string; beta?: string } | null = null): NativeRequest {
  return nativeRequest(api, parseJsonRequest(Buffer.from(text)), context(anthropic));
}

describe('a request relayed to an upstream that speaks its API', () => {
  it("is the client's own text with only the upstream's model spliced in", () => {
    const text = '{ "input" : [{"role":"user","content":"\\"model\\": \\"fast\\""}], "model":  "fast", "metadata": {"model": "fast"}, "stream": true,\n "reasoning": {"effort": "high"} }';
    const sent = buildNativeRequest(call(native('responses', text), { stream: true }), native('responses', text));
    expect(String(sent.body)).toBe(text.replace('"model":  "fast"', '"model":  "up/model"'));
    expect(sent).toMatchObject({ path: '/api/v1/responses', method: 'POST', headersTimeout: 2_000, bodyTimeout: 4_000 });
    expect(sent.headers).toEqual(['content-type', 'application/json', 'accept', 'text/event-stream', 'x-request-id', 'req_1']);
  });

  it('is serialised with the model set when there is no text to splice into, or no model string in it', () => {
    const given: NativeRequest = { api: 'responses', body: { input: 'hi', model: 'fast' }, source: null, headers: [] };
    expect(JSON.parse(String(buildNativeRequest(call(given), given).body))).toEqual({ input: 'hi', model: 'up/model' });
    const numbered = native('responses', '{"input":"hi","model":7}');
    expect(JSON.parse(String(buildNativeRequest(call(numbered), numbered).body))).toEqual({ input: 'hi', model: 'up/model' });
  });

  it('goes to <base>/messages with the key as both x-api-key and a bearer token, and the client\'s Anthropic headers', () => {
    const request = native('messages', '{"model":"fast","max_tokens":5,"messages":[]}', { version: '2023-01-01', beta: 'tools-2024' });
    expect(request.headers).toEqual(['anthropic-version', '2023-01-01', 'anthropic-beta', 'tools-2024']);
    const sent = buildNativeRequest(call(request, { upstream: { ...upstream, apiKey: 'sk-up' } }), request);
    expect(sent.path).toBe('/api/v1/messages');
    expect(sent.headers).toEqual([
      'content-type', 'application/json', 'accept', 'application/json', 'x-request-id', 'req_1',
      'authorization', 'Bearer sk-up', 'x-api-key', 'sk-up', 'anthropic-version', '2023-01-01', 'anthropic-beta', 'tools-2024',
    ]);
    expect(String(sent.body)).toBe('{"model":"up/model","max_tokens":5,"messages":[]}');
  });

  it('sends anthropic-version 2023-06-01 on Messages when the client sent none, and no Anthropic header on Responses', () => {
    const messages = native('messages', '{"model":"fast","messages":[]}', {});
    expect(buildNativeRequest(call(messages), messages).headers.slice(-2)).toEqual(['anthropic-version', '2023-06-01']);
    const responses = native('responses', '{"model":"fast","input":"hi"}', { version: '2023-01-01' });
    expect(responses.headers).toEqual([]);
    const sent = buildNativeRequest(call(responses, { upstream: { ...upstream, apiKey: 'sk-up' } }), responses);
    expect(sent.headers).toEqual(['content-type', 'application/json', 'accept', 'application/json', 'x-request-id', 'req_1', 'authorization', 'Bearer sk-up']);
  });
});
