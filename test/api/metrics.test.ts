// GET /metrics: on its own listener (not the API port), the series a finished request leaves, and
// in cluster mode the primary's sum over its workers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startMockUpstream } from '../helpers/mock-upstream.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';

/** `name{labels} value` lines → value, for the series named. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

function chat(port: number, key: string, body: string) {
  return fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
}

describe('GET /metrics (one process)', () => {
  let gateway: TestGateway;
  let metricsPort: number;

  beforeAll(async () => {
    gateway = await startGateway(undefined, { env: { MUNJA_METRICS_PORT: '0' } });
    metricsPort = gateway.app.metricsPort!;
  });
  afterAll(() => gateway.close());

  it('listens on its own port; the API port has no /metrics', async () => {
    expect(metricsPort).toBeGreaterThan(0);
    expect(metricsPort).not.toBe(gateway.port);
    expect((await fetch(`${gateway.origin}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });

  it('counts requests by model and status, tokens, latencies and rate-limit rejections', async () => {
    const { key } = await gateway.createKey();
    const limited = await gateway.createKey({ accountEmail: 'limited@example.com', rpm: 1 });
    const ok = await chat(gateway.port, key, chatBody({ model: 'fast', max_tokens: 5 }));
    expect(ok.status).toBe(200);
    const usage = ((await ok.json()) as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    expect((await chat(gateway.port, key, chatBody({ model: 'fast', temperature: 9 }))).status).toBe(400);
    expect((await chat(gateway.port, 'sk_munja_wrong', chatBody())).status).toBe(401);
    expect((await chat(gateway.port, key, chatBody({ model: 'no-such-model' }))).status).toBe(404);
    expect((await chat(gateway.port, limited.key, chatBody({ model: 'default', max_tokens: 3 }))).status).toBe(200);
    expect((await chat(gateway.port, limited.key, chatBody({ model: 'default', max_tokens: 3 }))).status).toBe(429);
    const stream = await chat(gateway.port, key, chatBody({ model: 'pro', stream: true, max_tokens: 4 }));
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('data: [DONE]');

    expect((await fetch(`${gateway.origin}/v1/models`)).status).toBe(401);
    expect((await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${gateway.origin}/health`)).status).toBe(200);
    expect((await fetch(`${gateway.origin}/nowhere/${'x'.repeat(10)}`)).status).toBe(404);

    const text = await scrape(metricsPort);
    const chatSeries = (labels: string) => `munja_requests_total{route="/v1/chat/completions",${labels}}`;
    expect(sample(text, chatSeries('model="fast",status="200",outcome="ok"'))).toBe(1);
    // Invalid bodies are refused before the model is known.
    expect(sample(text, chatSeries('model="none",status="400",outcome="error"'))).toBe(1);
    expect(sample(text, chatSeries('model="none",status="401",outcome="error"'))).toBe(1);
    expect(sample(text, chatSeries('model="other",status="404",outcome="error"'))).toBe(1);
    expect(sample(text, chatSeries('model="default",status="200",outcome="ok"'))).toBe(1);
    expect(sample(text, chatSeries('model="default",status="429",outcome="error"'))).toBe(1);
    expect(sample(text, chatSeries('model="pro",status="200",outcome="ok"'))).toBe(1);
    expect(text).not.toContain('no-such-model');
    // Routes that name no model have no model label; an unknown path is one bounded value.
    expect(sample(text, 'munja_requests_total{route="/v1/models",status="401",outcome="error"}')).toBe(1);
    expect(sample(text, 'munja_requests_total{route="/v1/models",status="200",outcome="ok"}')).toBe(1);
    expect(sample(text, 'munja_requests_total{route="/health",status="200",outcome="ok"}')).toBe(1);
    expect(sample(text, 'munja_requests_total{route="unmatched",status="404",outcome="error"}')).toBe(2); // with GET /metrics above
    expect(text).not.toMatch(/^munja_requests_total\{route="(?!\/v1\/chat\/completions|\/v1\/messages")[^"]*",model=/m);
    expect(text).not.toContain('nowhere');
    expect(sample(text, 'munja_request_errors_total{route="/v1/chat/completions",code="rate_limit_exceeded"}')).toBe(1);
    expect(sample(text, 'munja_request_errors_total{route="/v1/chat/completions",code="invalid_api_key"}')).toBe(1);
    expect(sample(text, 'munja_request_errors_total{route="unmatched",code="unknown_route"}')).toBe(2);
    expect(sample(text, 'munja_rate_limit_rejections_total{reason="rate_limit_exceeded"}')).toBe(1);
    expect(sample(text, 'munja_rate_limit_rejections_total{reason="limiter_unavailable"}')).toBe(0);

    expect(sample(text, 'munja_tokens_total{model="fast",direction="in"}')).toBe(usage.prompt_tokens);
    expect(sample(text, 'munja_tokens_total{model="fast",direction="out"}')).toBe(usage.completion_tokens);
    expect(sample(text, 'munja_tokens_total{model="pro",direction="out"}')).toBeGreaterThan(0);

    // Every chat completion request has a total time; overhead only those that reached their model.
    expect(sample(text, 'munja_request_duration_seconds_count{model="fast",stream="false"}')).toBe(1);
    expect(sample(text, 'munja_request_duration_seconds_bucket{model="fast",stream="false",le="+Inf"}')).toBe(1);
    expect(sample(text, 'munja_request_duration_seconds_count{model="none",stream="false"}')).toBe(2); // the 400 and the 401
    expect(sample(text, 'munja_request_duration_seconds_count{model="default",stream="false"}')).toBe(2); // the 200 and the 429
    expect(sample(text, 'munja_request_duration_seconds_count{model="pro",stream="true"}')).toBe(1);
    expect(sample(text, 'munja_gateway_overhead_seconds_count{model="fast",stream="false"}')).toBe(1);
    expect(sample(text, 'munja_gateway_overhead_seconds_count{model="default",stream="false"}')).toBe(1);
    expect(sample(text, 'munja_gateway_overhead_seconds_count{model="pro",stream="true"}')).toBe(1);
    const overhead = sample(text, 'munja_gateway_overhead_seconds_sum{model="fast",stream="false"}')!;
    const total = sample(text, 'munja_request_duration_seconds_sum{model="fast",stream="false"}')!;
    expect(overhead).toBeGreaterThan(0);
    expect(overhead).toBeLessThanOrEqual(total);
    expect(sample(text, 'munja_time_to_first_token_seconds_count{model="pro"}')).toBe(1);
    expect(sample(text, 'munja_time_to_first_token_seconds_count{model="fast"}')).toBeUndefined();

    expect(sample(text, 'munja_open_streams')).toBe(0);
    expect(sample(text, 'munja_engine_threads')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'munja_engine_queued_tasks')).toBe(0);
    // A rate-ready counter of engine thread time, and the capacity to divide its rate by.
    expect(sample(text, 'munja_engine_busy_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'munja_engine_max_threads')).toBe(1);
    expect(text).not.toContain('munja_engine_utilization');
    expect(text).toMatch(/^munja_build_info\{version="\d+\.\d+\.\d+[^"]*",nodejs_version="v\d+[^"]*"\} 1$/m);
    // Process metrics under their standard names, event-loop lag among them.
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).not.toContain('munja_process_');
    expect(text).not.toContain('munja_nodejs_');
    expect(sample(text, 'munja_upstream_retries_total')).toBe(0);
    expect(sample(text, 'munja_upstreams_ejected')).toBe(0);
    // The in-memory limiter has no fallback counters.
    expect(text).not.toMatch(/^munja_limiter_local_decisions_total /m);
  });

  it('counts a Messages completion as a completion of its model: requests, tokens, latencies', async () => {
    const { key } = await gateway.createKey();
    const response = await fetch(`${gateway.origin}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'hrllm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'Bok' }] }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text()).split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)));
    const { usage } = events.find((event) => event.type === 'message_delta');
    const text = await scrape(metricsPort);
    expect(sample(text, 'munja_requests_total{route="/v1/messages",model="hrllm",status="200",outcome="ok"}')).toBe(1);
    expect(sample(text, 'munja_tokens_total{model="hrllm",direction="in"}')).toBe(usage.input_tokens);
    expect(sample(text, 'munja_tokens_total{model="hrllm",direction="out"}')).toBe(usage.output_tokens);
    expect(sample(text, 'munja_request_duration_seconds_count{model="hrllm",stream="true"}')).toBe(1);
    expect(sample(text, 'munja_time_to_first_token_seconds_count{model="hrllm"}')).toBe(1);
  });

  it('counts an SSE response as open until it ends', async () => {
    const slow = await startGateway({
      engine: { threads: 1 },
      models: { slow: { local: { language: 'en', tokensPerSecond: 20 } } },
    }, { env: { MUNJA_METRICS_PORT: '0' } });
    try {
      const { key } = await slow.createKey();
      const response = await chat(slow.port, key, chatBody({ model: 'slow', stream: true, max_tokens: 20 }));
      const reader = response.body!.getReader();
      await reader.read();
      expect(sample(await scrape(slow.app.metricsPort!), 'munja_open_streams')).toBeGreaterThanOrEqual(1);
      await reader.cancel();
      await expect.poll(async () => sample(await scrape(slow.app.metricsPort!), 'munja_open_streams')).toBe(0);
      const text = await scrape(slow.app.metricsPort!);
      // The client left mid-stream: 499.
      expect(sample(text, 'munja_requests_total{route="/v1/chat/completions",model="slow",status="499",outcome="client_closed"}')).toBe(1);
      expect(sample(text, 'munja_time_to_first_token_seconds_count{model="slow"}')).toBe(1);
    } finally {
      await slow.close();
    }
  });
});

describe('GET /metrics: a stream that fails after it started', () => {
  it('is counted by its outcome and error code, not as a plain 200', async () => {
    const mock = await startMockUpstream();
    const gateway = await startGateway({
      ...FAST_TEST_CONFIG,
      models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
    }, { env: { MUNJA_METRICS_PORT: '0' } });
    try {
      const { key } = await gateway.createKey();
      const failing = `mock:${JSON.stringify({ kind: 'fail-mid-stream', afterChunks: 2 })}`;
      const failed = await chat(gateway.port, key, chatBody({ model: 'up', stream: true, messages: [{ role: 'user', content: failing }] }));
      expect(failed.status).toBe(200);
      expect(await failed.text()).toContain('upstream_error');
      const fine = await chat(gateway.port, key, chatBody({ model: 'up', stream: true }));
      expect(await fine.text()).toContain('[DONE]');
      const text = await scrape(gateway.app.metricsPort!);
      expect(sample(text, 'munja_requests_total{route="/v1/chat/completions",model="up",status="200",outcome="stream_failed"}')).toBe(1);
      expect(sample(text, 'munja_requests_total{route="/v1/chat/completions",model="up",status="200",outcome="ok"}')).toBe(1);
      expect(sample(text, 'munja_request_errors_total{route="/v1/chat/completions",code="upstream_error"}')).toBe(1);
    } finally {
      await gateway.close();
      await mock.close();
    }
  });
});

describe('GET /metrics (cluster)', () => {
  let redis: TestRedis;
  const dir = mkdtempSync(join(tmpdir(), 'munja-metrics-'));

  beforeAll(async () => { redis = await startRedis(); });
  afterAll(async () => {
    killServeProcesses();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the primary reports the sum over its workers', async () => {
    // A generous Redis deadline: on a loaded machine the default 50 ms can lapse, and a lapse is
    // answered locally, which this test counts.
    const config = join(dir, 'munja.json');
    writeFileSync(config, JSON.stringify({ redis: { commandTimeoutMs: 1_000 } }));
    const server = await startServeProcess({ REDIS_URL: redis.url, MUNJA_WORKERS: '2', MUNJA_DATA: dir, MUNJA_CONFIG: config });
    expect(server.metricsPort).not.toBeNull();
    expect(server.metricsPort).not.toBe(server.port);
    const key = server.firstKey();
    expect(key).toMatch(/^sk_munja_/);
    const requests = 40;
    // Fresh connections, so that the kernel spreads them over both workers.
    const statuses = await Promise.all(Array.from({ length: requests }, () => fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
      body: chatBody({ model: 'fast', max_tokens: 4 }),
    }).then((response) => response.status)));
    expect(statuses.every((status) => status === 200)).toBe(true);

    const text = await scrape(server.metricsPort!);
    expect(sample(text, 'munja_requests_total{route="/v1/chat/completions",model="fast",status="200",outcome="ok"}')).toBe(requests);
    // One build line, not one per worker summed.
    expect(text).toMatch(/^munja_build_info\{[^}]*\} 1$/m);
    expect(sample(text, 'munja_request_duration_seconds_count{model="fast",stream="false"}')).toBe(requests);
    // Both workers answered: each runs at least one engine thread, and the limiter is Redis's.
    expect(sample(text, 'munja_engine_threads')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'munja_limiter_local_decisions_total')).toBe(0);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(404);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);
});
