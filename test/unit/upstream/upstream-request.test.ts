import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../../src/config/config-types.ts';
import type { RequestContext } from '../../../src/http/request-context.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-exchange.ts';
import { buildUpstreamRequest } from '../../../src/upstream/upstream-request.ts';
import type { ChatRequestBody } from '../../../src/validation/chat-request.ts';

const upstream: UpstreamConfig = {
  baseUrl: 'http://127.0.0.1:9/v1', origin: 'http://127.0.0.1:9', chatPath: '/v1/chat/completions',
  model: 'up/model', apiKey: null, weight: 1, maxConnections: 1,
};

function call(overrides: { upstream?: UpstreamConfig; body?: Record<string, unknown>; stream?: boolean; requestId?: string }): UpstreamCall {
  return {
    client: { requestId: overrides.requestId ?? 'req_1', aborted: false, onAbort: null },
    streamTo: overrides.stream === true ? ({} as RequestContext) : null,
    dispatcher: null as never,
    upstream: overrides.upstream ?? upstream,
    publicModel: 'fast',
    body: (overrides.body ?? { model: 'fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }) as unknown as ChatRequestBody,
    includeUsage: false,
    timeouts: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 2_000, responseTimeoutMs: 3_000, idleTimeoutMs: 4_000 },
    headers: {},
    asBytes: true,
  };
}

describe('the request sent upstream', () => {
  it("is the client's body with the upstream's model, in the client's order, the body itself left as it was", () => {
    const body = { temperature: 0.5, model: 'fast', messages: [{ role: 'user', content: '"model":"fast"' }], max_tokens: 5 };
    const sent = buildUpstreamRequest(call({ body }));
    expect(sent.body).toBe('{"temperature":0.5,"model":"up/model","messages":[{"role":"user","content":"\\"model\\":\\"fast\\""}],"max_tokens":5}');
    expect(body).toEqual({ temperature: 0.5, model: 'fast', messages: [{ role: 'user', content: '"model":"fast"' }], max_tokens: 5 });
    expect(Object.keys(body)).toEqual(['temperature', 'model', 'messages', 'max_tokens']);
  });

  it('asks for JSON, carries the request id, and waits for the whole generation', () => {
    const sent = buildUpstreamRequest(call({ requestId: 'req_abc' }));
    expect(sent).toMatchObject({ path: '/v1/chat/completions', method: 'POST', headersTimeout: 3_000, bodyTimeout: 4_000 });
    expect(sent.headers).toEqual(['content-type', 'application/json', 'accept', 'application/json', 'x-request-id', 'req_abc']);
  });

  it("carries the upstream's API key, the same for every request", () => {
    const keyed = { ...upstream, apiKey: 'sk-upstream' };
    for (const requestId of ['req_1', 'req_2']) {
      expect(buildUpstreamRequest(call({ upstream: keyed, requestId })).headers).toEqual([
        'content-type', 'application/json', 'accept', 'application/json', 'x-request-id', requestId, 'authorization', 'Bearer sk-upstream',
      ]);
    }
  });

  it('on a stream, asks for events and always for usage, over what the client asked', () => {
    const body = { model: 'fast', messages: [], stream: true, stream_options: { include_usage: false } };
    const sent = buildUpstreamRequest(call({ body, stream: true }));
    expect(JSON.parse(sent.body as string)).toEqual({ model: 'up/model', messages: [], stream: true, stream_options: { include_usage: true } });
    expect(sent.headers[3]).toBe('text/event-stream');
    expect(sent.headersTimeout).toBe(2_000);
    expect(body.stream_options).toEqual({ include_usage: false });
  });

  it('each request gets its own header list (a queued request still holds its own)', () => {
    const first = buildUpstreamRequest(call({ requestId: 'req_1' }));
    const second = buildUpstreamRequest(call({ requestId: 'req_2' }));
    expect(first.headers).not.toBe(second.headers);
    expect(first.headers[5]).toBe('req_1');
  });
});
