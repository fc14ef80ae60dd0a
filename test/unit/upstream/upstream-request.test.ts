import { describe, expect, it } from 'vitest';
import type { UpstreamConfig } from '../../../src/config/config-types.ts';
import type { RequestContext } from '../../../src/http/request-context.ts';
import type { UpstreamCall } from '../../../src/upstream/upstream-exchange.ts';
import { buildUpstreamRequest } from '../../../src/upstream/upstream-request.ts';
import type { ChatRequestBody } from '../../../src/validation/chat-request.ts';
import { parseJsonRequest } from '../../../src/validation/parse-json-body.ts';

const upstream: UpstreamConfig = {
  baseUrl: 'http://127.0.0.1:9/v1', origin: 'http://127.0.0.1:9', chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'],
  model: 'up/model', apiKey: null, weight: 1, maxConnections: 1,
};

function call(overrides: { upstream?: UpstreamConfig; body?: Record<string, unknown>; text?: string; stream?: boolean; requestId?: string }): UpstreamCall {
  const source = overrides.text === undefined ? null : parseJsonRequest(Buffer.from(overrides.text));
  return {
    client: { requestId: overrides.requestId ?? 'req_1', aborted: false, onAbort: null },
    streamTo: overrides.stream === true ? ({} as RequestContext) : null,
    translator: null,
    dispatcher: null as never,
    upstream: overrides.upstream ?? upstream,
    publicModel: 'fast',
    body: (source?.value ?? overrides.body ?? { model: 'fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }) as unknown as ChatRequestBody,
    source,
    includeUsage: false,
    native: null,
    timeouts: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 2_000, responseTimeoutMs: 3_000, idleTimeoutMs: 4_000, maxEventBytes: 1024 * 1024 },
    headers: {},
    asBytes: true,
    cachedInputPriced: false,
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

  it("is the client's own text with the upstream's model spliced in: spacing, spelling and order kept", () => {
    const text = '\ufeff{ "temperature": 1.0, "model" : "fast", "messages": [{"role": "user", "content": "caf\\u00e9 \\"model\\": \\"fast\\"", "model": "x"}],\n "max_tokens": 5e0 }\n';
    const sent = buildUpstreamRequest(call({ text }));
    expect(String(sent.body)).toBe('{ "temperature": 1.0, "model" : "up/model", "messages": [{"role": "user", "content": "caf\\u00e9 \\"model\\": \\"fast\\"", "model": "x"}],\n "max_tokens": 5e0 }\n');
  });

  it('on a stream, asks for usage in the text: stream_options replaced where it is, or added at the end', () => {
    const cases = [
      ['{"model":"fast","stream":true,"messages":[]}', '{"model":"up/model","stream":true,"messages":[],"stream_options":{"include_usage":true}}'],
      ['{"stream_options": {"include_usage": false, "x": [1]}, "model": "fast", "stream": true}', '{"stream_options": {"include_usage":true}, "model": "up/model", "stream": true}'],
      ['{"model":"fast","stream_options":{},"stream":true} ', '{"model":"up/model","stream_options":{"include_usage":true},"stream":true} '],
    ];
    for (const [text, expected] of cases) expect(String(buildUpstreamRequest(call({ text, stream: true })).body), text).toBe(expected);
  });

  it('serialises the parsed body when the text has no span to splice (stream_options: null)', () => {
    const text = '{"model":"fast","stream":true,"stream_options":null,"messages":[]}';
    const sent = buildUpstreamRequest(call({ text, stream: true }));
    expect(String(sent.body)).toBe('{"model":"up/model","stream":true,"stream_options":{"include_usage":true},"messages":[]}');
  });

  it('splices to what serialising the parsed body gives, for 2,000 bodies in random layouts', () => {
    let seed = 20261127;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const contents = ['hi', '"model":"fast"', 'ćž 模型 🙂', '{"stream_options":null}', 'a\\b\n', ''];
    for (let trial = 0; trial < 2_000; trial++) {
      const stream = random(2) === 0;
      const entries: [string, unknown][] = [
        ['model', 'fast'],
        ['messages', [{ role: 'user', content: contents[random(contents.length)], model: 'nested' }]],
        ['max_tokens', random(1000)],
        ['metadata', { model: 'm', stream_options: { include_usage: false } }],
      ];
      if (stream) entries.push(['stream', true]);
      if (stream && random(2) === 0) entries.push(['stream_options', { include_usage: random(2) === 0 }]);
      for (let index = entries.length - 1; index > 0; index--) {
        const other = random(index + 1);
        [entries[index], entries[other]] = [entries[other]!, entries[index]!];
      }
      const body = Object.fromEntries(entries);
      const text = JSON.stringify(body, null, [0, 1, 2, '\t'][random(4)]);
      const spliced = String(buildUpstreamRequest(call({ text, stream })).body);
      const serialised = buildUpstreamRequest(call({ body, stream })).body as string;
      expect(JSON.parse(spliced), text).toEqual(JSON.parse(serialised));
    }
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
