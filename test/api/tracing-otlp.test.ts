// The OTLP wire output: the gateway configured only by OTEL_* variables exports its spans over
// OTLP/HTTP protobuf (gzip) to a receiver that decodes them.
import { once } from 'node:events';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let mock: MockUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  mock = await startMockUpstream();
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
  }, {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=team%20a',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_SERVICE_NAME: 'munja-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
  await receiver.close();
});

async function received(predicate: (spans: readonly ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  await expect.poll(() => predicate(receiver.spans)).toBe(true);
  return receiver.spans;
}

describe('OTLP/HTTP export', () => {
  it('delivers the span tree with its resource, attributes and the client\'s trace id', async () => {
    const { key, id } = await gateway.createKey();
    const response = await fetch(`${gateway.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      body: chatBody({ model: 'up', stream: true }),
    });
    expect(response.status).toBe(200);
    await response.text();
    const spans = (await received((all) => all.some((span) => span.kind === 2 && span.traceId === CLIENT_TRACE))).filter((span) => span.traceId === CLIENT_TRACE);

    expect(receiver.requests[0]).toMatchObject({ path: '/v1/traces', headers: { 'x-tenant': 'team a', 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' } });
    const root = spans.find((span) => span.kind === 2)!;
    expect(root.name).toBe('POST /v1/chat/completions');
    expect(root.parentSpanId).toBe(CLIENT_SPAN);
    expect(root.resource).toMatchObject({ 'service.name': 'munja-under-test', 'deployment.environment.name': 'test', 'service.version': '0.1.0' });
    expect(root.scope).toBe('munja');
    expect(root.attributes).toMatchObject({
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'up',
      'gen_ai.response.finish_reasons': ['stop'],
      'munja.key_id': id,
    });
    expect(root.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const names = spans.map((span) => span.name).sort();
    expect(names).toEqual(['POST /v1/chat/completions', 'chat mock-model', 'munja.auth', 'munja.dispatch', 'munja.rate_limit']);
    const dispatch = spans.find((span) => span.name === 'munja.dispatch')!;
    const upstream = spans.find((span) => span.name === 'chat mock-model')!;
    expect(dispatch.parentSpanId).toBe(root.spanId);
    expect(upstream.parentSpanId).toBe(dispatch.spanId);
    expect(upstream.kind).toBe(3);
    const [seen] = await mock.waitForRequests(1);
    expect(seen!.headers.traceparent).toBe(`00-${CLIENT_TRACE}-${upstream.spanId}-01`);
    expect(JSON.stringify(spans)).not.toContain(key);
  });
});

describe('an OTLP endpoint that cannot be reached', () => {
  it('costs spans, not requests, and the log says so', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    const logStream = new PassThrough();
    let logged = '';
    logStream.on('data', (chunk: Buffer) => { logged += chunk.toString(); });
    const unreachable = await startGateway(undefined, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_EXPORTER_OTLP_TIMEOUT: '500' },
      logTo: logStream,
    });
    try {
      const { key } = await unreachable.createKey();
      for (let index = 0; index < 3; index++) {
        const response = await fetch(`${unreachable.origin}/v1/chat/completions`, {
          method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody({ model: 'fast', max_tokens: 2 }),
        });
        expect(response.status).toBe(200);
        await response.text();
      }
      await expect.poll(() => logged).toMatch(/"level":(40|50),[^\n]*"msg":"tracing: /);
    } finally {
      await unreachable.close();
    }
  });
});
