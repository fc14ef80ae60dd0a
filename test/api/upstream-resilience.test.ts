// Several upstreams per model: failover with at most one retry (before the first byte only, within
// the retry budget), the circuit breaker (ejection, fast 503, trial, restoration), the back-off after
// a 429, and `auto` routing to the least busy model. Each case has its own gateway and mocks, so
// breaker state never leaks between cases.
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type Behavior, type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { chunksOf } from '../helpers/sse.ts';

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((item) => item.close()));
});

async function mock(defaultBehavior?: Behavior, port?: number): Promise<MockUpstream> {
  const upstream = await startMockUpstream({ defaultBehavior, port });
  started.push(upstream);
  return upstream;
}

type UpstreamFile = NonNullable<NonNullable<ConfigFile['models']>[string]['upstreams']>[number];

function upstreamOf(target: MockUpstream | string, weight = 1): UpstreamFile {
  const baseUrl = typeof target === 'string' ? target : target.baseUrl;
  return { baseUrl, model: 'mock-model', weight, maxConnections: 4 };
}

async function gatewayWith(models: ConfigFile['models'], upstream: ConfigFile['upstream'] = {}): Promise<{ gateway: TestGateway; post: (body?: string) => Promise<Response> }> {
  const gateway = await startGateway({
    engine: { threads: 1 },
    upstream: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 2_000, responseTimeoutMs: 2_000, idleTimeoutMs: 1_000, ...upstream, retry: { backoffMs: 5, ...upstream.retry } },
    models,
  }, { env: { MUNJA_METRICS_PORT: '0' } });
  started.push(gateway);
  const { key } = await gateway.createKey();
  const post = (body = chatBody({ model: 'm' })) => fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return { gateway, post };
}

/** A base URL nothing listens on. */
async function deadBaseUrl(): Promise<{ baseUrl: string; port: number }> {
  const upstream = await startMockUpstream();
  const { baseUrl, port } = upstream;
  await upstream.close();
  return { baseUrl, port };
}

const FAILING: Behavior = { kind: 'status', status: 503 };
const OK: Behavior = { kind: 'json', text: 'fine' };

describe('failover and retries', () => {
  it('a refused connection on the preferred upstream is retried on the other: every request succeeds', async () => {
    const dead = await deadBaseUrl();
    const healthy = await mock(OK);
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(dead.baseUrl, 1_000_000), upstreamOf(healthy, 1)] } }, { breaker: { consecutiveFailures: 1_000 } });
    for (let request = 0; request < 5; request++) {
      const response = await post();
      expect(response.status).toBe(200);
      expect((await response.json()).choices[0].message.content).toBe('fine');
    }
    expect(healthy.totals.requests).toBe(5);
  });

  it('at most one retry: two failing upstreams → 502 after exactly two attempts', async () => {
    const first = await mock(FAILING);
    const second = await mock(FAILING);
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(first), upstreamOf(second)] } }, { breaker: { consecutiveFailures: 1_000 } });
    const response = await post();
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('upstream_error');
    expect(first.totals.requests).toBe(1);
    expect(second.totals.requests).toBe(1);
  });

  it('no retry once the stream has started: the client gets the error event, the other upstream nothing', async () => {
    const breaking = await mock({ kind: 'fail-mid-stream', afterChunks: 1 });
    const spare = await mock(OK);
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(breaking, 1_000_000), upstreamOf(spare, 1)] } });
    const response = await post(chatBody({ model: 'm', stream: true }));
    expect(response.status).toBe(200);
    const chunks = chunksOf(await response.text());
    expect(chunks.at(-1).error.code).toBe('upstream_error');
    expect(breaking.totals.requests).toBe(1);
    expect(spare.totals.requests).toBe(0);
  });

  it('a request the upstream refused as invalid (400) is not retried elsewhere', async () => {
    const strict = await mock({ kind: 'status', status: 400, message: 'bad request' });
    const spare = await mock(OK);
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(strict, 1_000_000), upstreamOf(spare, 1)] } });
    expect((await post()).status).toBe(400);
    expect(spare.totals.requests).toBe(0);
  });

  it('under a full outage the retries stay within the budget: reserve + budgetPercent of the requests', async () => {
    const first = await mock(FAILING);
    const second = await mock(FAILING);
    const retry = { budgetPercent: 10, reserve: 2 };
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(first), upstreamOf(second)] } }, { retry, breaker: { consecutiveFailures: 1_000 } });
    const requests = 60;
    for (let request = 0; request < requests; request++) expect((await post()).status).toBe(502);
    const attempts = first.totals.requests + second.totals.requests;
    expect(attempts).toBeGreaterThan(requests);
    expect(attempts).toBeLessThanOrEqual(requests + retry.reserve + Math.ceil(requests * retry.budgetPercent / 100));
  });

  it('an upstream that answers 429 hands the request to the other, and is passed over while it backs off', async () => {
    const limited = await mock({ kind: 'status', status: 429, retryAfter: '30' });
    const spare = await mock(OK);
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(limited, 1_000_000), upstreamOf(spare, 1)] } });
    for (let request = 0; request < 4; request++) expect((await post()).status).toBe(200);
    expect(limited.totals.requests).toBe(1);
    expect(spare.totals.requests).toBe(4);
  });
});

describe('circuit breaker', () => {
  it('ejects a failing upstream: the other one serves without it being touched (and metrics say so)', async () => {
    const failing = await mock(FAILING);
    const spare = await mock(OK);
    const { gateway, post } = await gatewayWith(
      { m: { upstreams: [upstreamOf(failing, 1_000_000), upstreamOf(spare, 1)] } },
      { breaker: { consecutiveFailures: 3, ejectMs: 600_000 } },
    );
    for (let request = 0; request < 10; request++) expect((await post()).status).toBe(200);
    expect(failing.totals.requests).toBe(3);
    expect(spare.totals.requests).toBe(10);
    const metrics = await (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^munja_upstream_retries_total 3$/m);
    expect(metrics).toMatch(/^munja_upstream_ejections_total 1$/m);
    expect(metrics).toMatch(/^munja_upstreams_ejected 1$/m);
  });

  it('with its only upstream ejected a model fails fast with 503 upstream_unavailable, then a trial restores it', async () => {
    const dead = await deadBaseUrl();
    const ejectMs = 400;
    const { post } = await gatewayWith(
      { m: { upstreams: [upstreamOf(dead.baseUrl)] } },
      { breaker: { consecutiveFailures: 2, ejectMs }, retry: { reserve: 0, budgetPercent: 0 } },
    );
    expect((await post()).status).toBe(502);
    expect((await post()).status).toBe(502);
    const refused = await post();
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.code).toBe('upstream_unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The server comes back on the same port; nothing reaches it until the ejection time is over.
    const revived = await mock(OK, dead.port);
    expect((await post()).status).toBe(503);
    expect(revived.totals.requests).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, ejectMs + 50));
    expect((await post()).status).toBe(200);
    for (let request = 0; request < 3; request++) expect((await post()).status).toBe(200);
    expect(revived.totals.requests).toBe(4);
  });

  it('a failed trial ejects it again', async () => {
    const failing = await mock(FAILING);
    const ejectMs = 300;
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(failing)] } }, { breaker: { consecutiveFailures: 1, ejectMs }, retry: { reserve: 0, budgetPercent: 0 } });
    expect((await post()).status).toBe(502);
    expect((await post()).status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, ejectMs + 50));
    expect((await post()).status).toBe(502);
    expect((await post()).status).toBe(503);
    expect(failing.totals.requests).toBe(2);
  });
});

describe('auto routes to the least busy model', () => {
  it('sends a request to the second model while the first is busy, and back when it is free', async () => {
    const slow = await mock();
    const other = await mock(OK);
    const { post } = await gatewayWith({
      first: { upstreams: [upstreamOf(slow)] },
      second: { upstreams: [upstreamOf(other)] },
      auto: { route: ['first', 'second'] },
    });
    const busy = post(chatBody({ model: 'auto', messages: [{ role: 'user', content: `mock:${JSON.stringify({ kind: 'json', delayMs: 500 })}` }] }));
    await slow.waitForRequests(1);
    const meanwhile = await post(chatBody({ model: 'auto' }));
    expect(meanwhile.status).toBe(200);
    expect(meanwhile.headers.get('x-munja-served-model')).toBe('second');
    expect((await meanwhile.json()).model).toBe('auto');
    expect((await busy).headers.get('x-munja-served-model')).toBe('first');
    const after = await post(chatBody({ model: 'auto' }));
    expect(after.headers.get('x-munja-served-model')).toBe('first');
  });

  it('skips a model whose upstreams are ejected', async () => {
    const failing = await mock(FAILING);
    const other = await mock(OK);
    const { post } = await gatewayWith(
      { first: { upstreams: [upstreamOf(failing)] }, second: { upstreams: [upstreamOf(other)] }, auto: { route: ['first', 'second'] } },
      { breaker: { consecutiveFailures: 1, ejectMs: 600_000 }, retry: { reserve: 0, budgetPercent: 0 } },
    );
    expect((await post(chatBody({ model: 'auto' }))).status).toBe(502);
    for (let request = 0; request < 3; request++) {
      const response = await post(chatBody({ model: 'auto' }));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-munja-served-model')).toBe('second');
    }
    expect(failing.totals.requests).toBe(1);
  });
});

describe('faults mid-stream', () => {
  it.each([
    ['a stall', { kind: 'hang', afterChunks: 2 } as Behavior, 'upstream_timeout'],
    ['a reset', { kind: 'reset', afterChunks: 2 } as Behavior, 'upstream_error'],
  ])('%s → an SSE error event, the upstream connection destroyed, and the next request served', async (_name, behavior, code) => {
    const upstream = await mock();
    const { post } = await gatewayWith({ m: { upstreams: [upstreamOf(upstream)] } }, { idleTimeoutMs: 300 });
    const response = await post(chatBody({ model: 'm', stream: true, messages: [{ role: 'user', content: `mock:${JSON.stringify(behavior)}` }] }));
    expect(response.status).toBe(200);
    expect(chunksOf(await response.text()).at(-1).error.code).toBe(code);
    await upstream.waitFor(() => upstream.connections.open === 0, () => `${upstream.connections.open} upstream connections still open`);
    const next = await post();
    expect(next.status).toBe(200);
  });
});
