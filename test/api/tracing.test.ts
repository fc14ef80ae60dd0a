// OpenTelemetry traces through the SDK's in-memory exporter: the span tree of a request, the HTTP
// and GenAI attributes, W3C traceparent from the client to the upstream, no secrets on spans,
// content only on opt-in, and the request log line joined to its trace.
import { PassThrough } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
const TRACING_ENV = { OTEL_TRACES_EXPORTER: 'otlp' };

interface Traced {
  readonly gateway: TestGateway;
  readonly exporter: InMemorySpanExporter;
  readonly key: string;
  readonly keyId: string;
  readonly logs: () => Array<Record<string, unknown>>;
}

let mock: MockUpstream;

async function startTraced(env: Record<string, string> = {}): Promise<Traced> {
  const exporter = new InMemorySpanExporter();
  const logStream = new PassThrough();
  let logged = '';
  logStream.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
  const gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
  }, { env: { ...TRACING_ENV, ...env }, spanProcessor: new SimpleSpanProcessor({ exporter }), logTo: logStream });
  const { key, id } = await gateway.createKey();
  const logs = () => logged.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { gateway, exporter, key, keyId: id, logs };
}

function chat(traced: Traced, body: string, headers: Record<string, string> = {}) {
  return fetch(`${traced.gateway.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${traced.key}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** The finished spans, once a server span has ended. */
async function spansOf(exporter: InMemorySpanExporter): Promise<ReadableSpan[]> {
  await expect.poll(() => exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)).toBe(true);
  return exporter.getFinishedSpans();
}

function byName(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.find((span) => span.name === name);
  expect(found, `${name} in ${spans.map((span) => span.name).join(', ')}`).toBeDefined();
  return found!;
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

beforeAll(async () => { mock = await startMockUpstream(); });
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe('tracing on (parent-based, always on: the default sampler)', () => {
  let traced: Traced;
  beforeAll(async () => { traced = await startTraced(); });
  afterAll(() => traced.gateway.close());
  beforeEach(() => traced.exporter.reset());

  it('a streamed upstream completion: the span tree under the client\'s traceparent, propagated upstream', async () => {
    const response = await chat(traced, chatBody({ model: 'up', stream: true }), { traceparent: TRACEPARENT, tracestate: 'vendor=1' });
    expect(response.status).toBe(200);
    await response.text();
    const spans = await spansOf(traced.exporter);
    const root = byName(spans, 'POST /v1/chat/completions');
    expect(root.kind).toBe(SpanKind.SERVER);
    expect(root.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(parentOf(root)).toBe(CLIENT_SPAN);
    const auth = byName(spans, 'munja.auth');
    const limiter = byName(spans, 'munja.rate_limit');
    const dispatch = byName(spans, 'munja.dispatch');
    const upstream = byName(spans, 'chat mock-model');
    for (const child of [auth, limiter, dispatch]) expect(parentOf(child)).toBe(root.spanContext().spanId);
    expect(parentOf(upstream)).toBe(dispatch.spanContext().spanId);
    expect(upstream.kind).toBe(SpanKind.CLIENT);
    expect(spans.every((span) => span.spanContext().traceId === CLIENT_TRACE)).toBe(true);
    expect(limiter.attributes['munja.rate_limit.allowed']).toBe(true);

    // The upstream got the upstream span's context, and the client's tracestate.
    const [seen] = await mock.waitForRequests(1);
    expect(seen!.headers.traceparent).toBe(`00-${CLIENT_TRACE}-${upstream.spanContext().spanId}-01`);
    expect(seen!.headers.tracestate).toBe('vendor=1');

    expect(root.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'url.path': '/v1/chat/completions',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'up',
      'gen_ai.response.model': 'up',
      'gen_ai.response.finish_reasons': ['stop'],
      'munja.key_id': traced.keyId,
      'munja.outcome': 'ok',
      'munja.stream': true,
    });
    expect(root.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(root.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(root.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(upstream.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'mock-model',
      'gen_ai.response.finish_reasons': ['stop'],
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': mock.port,
    });
    expect(upstream.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(upstream.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // Prompts and completions stay off spans unless the operator opts in; the key never appears.
    const everything = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events]));
    expect(everything).not.toContain('gen_ai.input.messages');
    expect(everything).not.toContain('gen_ai.output.messages');
    expect(everything).not.toContain(traced.key);
    expect(everything).not.toContain(traced.key.slice(-12));
  });

  it('a JSON completion from the local engine: finish reasons from the engine, no upstream span', async () => {
    const response = await chat(traced, chatBody({ model: 'fast', max_tokens: 3 }));
    expect(response.status).toBe(200);
    const spans = await spansOf(traced.exporter);
    const root = byName(spans, 'POST /v1/chat/completions');
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes['gen_ai.response.finish_reasons']).toEqual(['length']);
    expect(root.attributes['gen_ai.usage.output_tokens']).toBe(3);
    expect(root.attributes['gen_ai.response.time_to_first_chunk']).toBeUndefined();
    expect(spans.map((span) => span.name).sort()).toEqual(['POST /v1/chat/completions', 'munja.auth', 'munja.dispatch', 'munja.rate_limit']);
  });

  it('a stream that fails after it started: error status on the request and the upstream span', async () => {
    const failing = `mock:${JSON.stringify({ kind: 'fail-mid-stream', afterChunks: 1 })}`;
    const response = await chat(traced, chatBody({ model: 'up', stream: true, messages: [{ role: 'user', content: failing }] }));
    expect(response.status).toBe(200);
    await response.text();
    const spans = await spansOf(traced.exporter);
    const root = byName(spans, 'POST /v1/chat/completions');
    expect(root.status.code).toBe(SpanStatusCode.ERROR);
    expect(root.attributes).toMatchObject({ 'http.response.status_code': 200, 'munja.outcome': 'stream_failed', 'error.type': 'upstream_error' });
    const upstream = byName(spans, 'chat mock-model');
    expect(upstream.status.code).toBe(SpanStatusCode.ERROR);
    expect(upstream.attributes['error.type']).toBe('upstream_error');
  });

  it('a refused key: the auth phase ends the trace, with the error and no model', async () => {
    const response = await fetch(`${traced.gateway.origin}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: 'Bearer sk_munja_nope', 'content-type': 'application/json' }, body: chatBody(),
    });
    expect(response.status).toBe(401);
    const spans = await spansOf(traced.exporter);
    expect(spans.map((span) => span.name).sort()).toEqual(['POST /v1/chat/completions', 'munja.auth']);
    const root = byName(spans, 'POST /v1/chat/completions');
    expect(root.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'invalid_api_key', 'munja.outcome': 'error' });
    expect(root.attributes['gen_ai.request.model']).toBeUndefined();
    // 4xx is the client's error: the server span stays unset (HTTP semantic conventions).
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(byName(spans, 'munja.auth').attributes['error.type']).toBe('invalid_api_key');
  });

  it('other routes get a span named by route; an unknown path by method only', async () => {
    await (await fetch(`${traced.gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${traced.key}` } })).text();
    await (await fetch(`${traced.gateway.origin}/no/such/path`)).text();
    const names = (await spansOf(traced.exporter)).map((span) => span.name);
    expect(names).toContain('GET /v1/models');
    expect(names).toContain('GET');
  });

  it('the request log line carries the trace and span ids', async () => {
    const response = await chat(traced, chatBody({ model: 'fast', max_tokens: 2 }), { traceparent: TRACEPARENT });
    await response.text();
    const root = byName(await spansOf(traced.exporter), 'POST /v1/chat/completions');
    await expect.poll(() => traced.logs().find((entry) => entry.msg === 'request' && entry.span_id === root.spanContext().spanId))
      .toMatchObject({ trace_id: CLIENT_TRACE, route: '/v1/chat/completions', outcome: 'ok', status: 200 });
  });
});

describe('content capture (opt-in)', () => {
  it('records the prompt and a JSON completion when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true', async () => {
    const traced = await startTraced({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    try {
      const response = await chat(traced, chatBody({ model: 'fast', max_tokens: 3, messages: [{ role: 'user', content: 'secret plans' }] }));
      const reply = ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
      const root = byName(await spansOf(traced.exporter), 'POST /v1/chat/completions');
      expect(String(root.attributes['gen_ai.input.messages'])).toContain('secret plans');
      expect(String(root.attributes['gen_ai.output.messages'])).toContain(JSON.stringify(reply).slice(1, -1));
    } finally {
      await traced.gateway.close();
    }
  });
});

describe('a request the sampler drops', () => {
  it('makes no span, yet its upstream gets a traceparent flagged not sampled, under the client\'s trace', async () => {
    const traced = await startTraced({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    try {
      const unsampledParent = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-00`;
      await (await chat(traced, chatBody({ model: 'up' }), { traceparent: unsampledParent })).text();
      await (await chat(traced, chatBody({ model: 'up' }))).text();
      const seen = await mock.waitForRequests(2);
      expect(seen[0]!.headers.traceparent).toMatch(new RegExp(`^00-${CLIENT_TRACE}-[0-9a-f]{16}-00$`));
      expect(seen[1]!.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
      // A span would have ended before its request's log line was written.
      await expect.poll(() => traced.logs().filter((entry) => entry.msg === 'request')).toHaveLength(2);
      expect(traced.exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await traced.gateway.close();
    }
  });
});

describe('tracing off (the default)', () => {
  it('sends no traceparent upstream and logs no trace id', async () => {
    const logStream = new PassThrough();
    let logged = '';
    logStream.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
    const gateway = await startGateway({
      ...FAST_TEST_CONFIG,
      models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
    }, { logTo: logStream });
    try {
      const { key } = await gateway.createKey();
      const response = await fetch(`${gateway.origin}/v1/chat/completions`, {
        method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: TRACEPARENT }, body: chatBody({ model: 'up' }),
      });
      expect(response.status).toBe(200);
      const [seen] = await mock.waitForRequests(1);
      expect(seen!.headers.traceparent).toBeUndefined();
      await gateway.close();
      expect(logged).toContain('"msg":"request"');
      expect(logged).not.toContain('trace_id');
    } catch (error) {
      await gateway.close();
      throw error;
    }
  });
});
