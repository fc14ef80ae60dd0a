// Munja in front of a vLLM-like mock upstream: the openai SDK end to end, the request sent
// upstream, error mapping before and after the stream starts, and client-abort propagation.
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type Behavior, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts';
import { chunksOf } from '../helpers/sse.ts';

let mock: MockUpstream;
let gateway: TestGateway;
let key: string;
let client: OpenAI;

const TIMEOUT_MS = 400;

function upstreamConfig(baseUrl: string): ConfigFile {
  const upstreams = [{ baseUrl, model: 'mock-model', apiKey: 'upstream-secret', maxConnections: 4 }];
  return {
    engine: { threads: 1 },
    // Each case maps one failure; the circuit breaker (upstream-resilience.test.ts) must not eject the mock here.
    upstream: {
      connectTimeoutMs: TIMEOUT_MS, firstByteTimeoutMs: TIMEOUT_MS, responseTimeoutMs: TIMEOUT_MS, idleTimeoutMs: TIMEOUT_MS,
      breaker: { consecutiveFailures: 1_000_000 },
    },
    models: { fast: { upstreams }, auto: { route: ['fast'] } },
  };
}

beforeAll(async () => {
  mock = await startMockUpstream({ apiKey: 'upstream-secret' });
  gateway = await startGateway(upstreamConfig(mock.baseUrl));
  ({ key } = await gateway.createKey());
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
});
beforeEach(() => mock.reset());

const script = (behavior: Behavior) => `mock:${JSON.stringify(behavior)}`;

function post(body: string) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
}

async function errorOf(body: string) {
  const response = await post(body);
  return { status: response.status, headers: response.headers, error: (await response.json()).error };
}

describe('relay through the openai SDK', () => {
  it('answers JSON with the public model id and the upstream usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'auto',
      messages: [{ role: 'user', content: script({ kind: 'json', text: 'hello from upstream', promptTokens: 17 }) }],
      temperature: 0.3,
    });
    expect(completion.model).toBe('auto');
    expect(completion.choices[0]?.message.content).toBe('hello from upstream');
    expect(completion.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 3 });
    const seen = mock.requests[0]!;
    expect(seen.path).toBe('/v1/chat/completions');
    expect(seen.headers.authorization).toBe('Bearer upstream-secret');
    expect(seen.body).toMatchObject({ model: 'mock-model', temperature: 0.3 });
  });

  it('streams, rewriting the model, and forwards usage only when asked', async () => {
    const messages = [{ role: 'user' as const, content: script({ kind: 'stream', chunks: 5 }) }];
    let text = '';
    for await (const chunk of await client.chat.completions.create({ model: 'fast', messages, stream: true })) {
      expect(chunk.model).toBe('fast');
      expect(chunk.choices).toHaveLength(1);
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('w1 w2 w3 w4 w5 ');
    expect(mock.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of await client.chat.completions.create({ model: 'fast', messages, stream: true, stream_options: { include_usage: true } })) {
      if (chunk.usage) usage = chunk.usage;
    }
    expect(usage?.completion_tokens).toBe(5);
  });

  it("sends the client's own text upstream, with only the model and the stream's usage option changed", async () => {
    const content = script({ kind: 'stream', chunks: 2 }).replaceAll('"', '\\"');
    const sent = `{ "stream": true,\n  "stream_options" : { "include_usage": false },\n  "messages": [{"role": "user", "content": "${content}", "name": "caf\u00e9"}],\n  "temperature": 1.0, "model": "fast" }`;
    const response = await post(sent);
    expect(response.status).toBe(200);
    await response.text();
    expect(mock.requests[0]!.rawBody).toBe(sent.replace('{ "include_usage": false }', '{"include_usage":true}').replace('"model": "fast"', '"model": "mock-model"'));
  });

  it('passes the upstream request id and nothing hop-by-hop', async () => {
    const response = await post(chatBody({ messages: [{ role: 'user', content: script({ kind: 'json', text: 'x' }) }] }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-upstream-request-id')).toBe(mock.requests[0]!.headers['x-request-id']);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('keep-alive')).toBeNull();
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
  });
});

describe('failures before the response starts', () => {
  const cases: Array<[string, Behavior, number, string]> = [
    ['upstream 401', { kind: 'status', status: 401 }, 502, 'upstream_unauthorized'],
    ['upstream 403', { kind: 'status', status: 403 }, 502, 'upstream_unauthorized'],
    ['upstream 500', { kind: 'status', status: 500 }, 502, 'upstream_error'],
    ['upstream 503', { kind: 'status', status: 503 }, 502, 'upstream_error'],
    ['garbage body', { kind: 'garbage' }, 502, 'upstream_error'],
    ['reset before headers', { kind: 'reset' }, 502, 'upstream_error'],
    ['no answer', { kind: 'hang' }, 504, 'upstream_timeout'],
  ];
  it.each(cases)('%s → %s %s', async (_name, behavior, status, code) => {
    const result = await errorOf(chatBody({ messages: [{ role: 'user', content: script(behavior) }] }));
    expect(result.status).toBe(status);
    expect(result.error.code).toBe(code);
  });

  it('upstream 429 → 429 upstream_rate_limited with a clamped Retry-After', async () => {
    const long = await errorOf(chatBody({ messages: [{ role: 'user', content: script({ kind: 'status', status: 429, retryAfter: '3600' }) }] }));
    expect(long.status).toBe(429);
    expect(long.error.code).toBe('upstream_rate_limited');
    expect(long.headers.get('retry-after')).toBe('60');
    const short = await errorOf(chatBody({ messages: [{ role: 'user', content: script({ kind: 'status', status: 429, retryAfter: '3' }) }] }));
    expect(short.headers.get('retry-after')).toBe('3');
  });

  it("an error after admission carries the request's x-ratelimit-* headers", async () => {
    const result = await errorOf(chatBody({ messages: [{ role: 'user', content: script({ kind: 'status', status: 500 }) }] }));
    expect(result.status).toBe(502);
    expect(result.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(result.headers.get('x-ratelimit-reset-tokens')).toMatch(/^\d+(ms|s)$/);
  });

  it('upstream 400 → 400 with the upstream message', async () => {
    const result = await errorOf(chatBody({ messages: [{ role: 'user', content: script({ kind: 'status', status: 400, message: 'max_tokens is too large for this model' }) }] }));
    expect(result.status).toBe(400);
    expect(result.error.code).toBe('upstream_bad_request');
    expect(result.error.message).toContain('max_tokens is too large for this model');
  });

  it('a refused connection → 502, for streams too', async () => {
    const closed = await startMockUpstream();
    const deadUrl = closed.baseUrl;
    await closed.close();
    const dead = await startGateway(upstreamConfig(deadUrl));
    const deadKey = (await dead.createKey()).key;
    for (const stream of [false, true]) {
      const response = await fetch(`${dead.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${deadKey}`, 'content-type': 'application/json' },
        body: chatBody({ stream }),
      });
      expect(response.status).toBe(502);
      expect((await response.json()).error.code).toBe('upstream_error');
    }
    await dead.close();
  });
});

describe('failures after the stream started', () => {
  const cases: Array<[string, Behavior, string]> = [
    ['an upstream error event', { kind: 'fail-mid-stream', afterChunks: 2, message: 'CUDA out of memory' }, 'upstream_error'],
    ['a reset', { kind: 'reset', afterChunks: 2 }, 'upstream_error'],
    ['a stall', { kind: 'hang', afterChunks: 2 }, 'upstream_timeout'],
  ];
  it.each(cases)('%s → an SSE error event, then [DONE]', async (_name, behavior, code) => {
    const response = await post(chatBody({ stream: true, messages: [{ role: 'user', content: script(behavior) }] }));
    expect(response.status).toBe(200);
    const chunks = chunksOf(await response.text());
    const last = chunks.at(-1);
    expect(last.error.code).toBe(code);
    // A reset may discard bytes still in flight: what arrived is a prefix of what was sent.
    expect('w1 w2 '.startsWith(chunks.slice(0, -1).map((chunk) => chunk.choices[0].delta.content ?? '').join(''))).toBe(true);
  });

  it('the SDK raises the mid-stream error', async () => {
    const stream = await client.chat.completions.create({
      model: 'fast', stream: true, messages: [{ role: 'user', content: script({ kind: 'fail-mid-stream', afterChunks: 1 }) }],
    });
    await expect((async () => { for await (const _chunk of stream) { /* drain */ } })()).rejects.toBeInstanceOf(APIError);
  });
});

describe('client disconnect', () => {
  it('aborts a stream upstream at once and bills what was streamed', async () => {
    const { key: billedKey, id } = await gateway.createKey({ accountEmail: 'billed@example.com' });
    const controller = new AbortController();
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${billedKey}`, 'content-type': 'application/json' },
      body: chatBody({ stream: true, messages: [{ role: 'user', content: script({ kind: 'stream', chunks: 1000, paceMs: 20 }) }] }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/"content":"w/g) ?? []).length < 3) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await mock.waitForAbort(1);
    expect(mock.requests[0]!.chunksWritten).toBeLessThan(1000);
    const today = new Date().toISOString().slice(0, 10);
    const usage = async () => (await gateway.app.store.usageByDay([id], today, today))[0];
    await expect.poll(async () => (await usage())?.requests).toBe(1); // the usage recorder flushes once a second
    expect((await usage())?.completionTokens).toBeGreaterThanOrEqual(3);
  });

  it('aborts a request still waiting for upstream headers', async () => {
    const controller = new AbortController();
    const pending = fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ messages: [{ role: 'user', content: script({ kind: 'hang' }) }] }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    await mock.waitForRequests(1);
    controller.abort();
    await mock.waitForAbort(1, 2000);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('connection pool', () => {
  it('reuses a bounded set of keep-alive connections under load', async () => {
    const before = mock.connections.opened;
    await Promise.all(Array.from({ length: 40 }, () => client.chat.completions.create({
      model: 'fast', messages: [{ role: 'user', content: script({ kind: 'json', text: 'ok', delayMs: 5 }) }],
    })));
    for (let i = 0; i < 20; i++) {
      await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: script({ kind: 'json', text: 'ok' }) }] });
    }
    expect(mock.connections.maxOpen).toBeLessThanOrEqual(4);
    expect(mock.connections.opened - before).toBeLessThanOrEqual(4);
  });
});
