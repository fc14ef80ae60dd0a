// GET /metrics as Prometheus itself sees it: promtool's lint of the exposition, the shipped rules
// (monitoring/munja-rules.yml) checked and evaluated by a real Prometheus server scraping the
// gateway, and every query of the shipped Grafana dashboard accepted by that server.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TEST_CONFIG, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { type MockUpstream, startMockUpstream } from '../helpers/mock-upstream.ts';
import { startPrometheus, type TestPrometheus } from '../helpers/prometheus-server.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

const RULES = new URL('../../monitoring/munja-rules.yml', import.meta.url).pathname;
const DASHBOARD = new URL('../../monitoring/munja-dashboard.json', import.meta.url).pathname;

let redis: TestRedis;
let mock: MockUpstream;
let gateway: TestGateway;
let key: string;

function chat(body: string) {
  return fetch(`${gateway.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  }).then(async (response) => { await response.arrayBuffer(); return response.status; });
}

/** Traffic that leaves every kind of series: JSON, stream, failed stream, 4xx, other routes. */
async function someTraffic(): Promise<void> {
  const failing = `mock:${JSON.stringify({ kind: 'fail-mid-stream', afterChunks: 1 })}`;
  await Promise.all([
    chat(chatBody({ model: 'fast', max_tokens: 4 })),
    chat(chatBody({ model: 'pro', stream: true, max_tokens: 4 })),
    chat(chatBody({ model: 'up', stream: true })),
    chat(chatBody({ model: 'up', stream: true, messages: [{ role: 'user', content: failing }] })),
    chat(chatBody({ model: 'nope' })),
    fetch(`${gateway.origin}/v1/models`).then((response) => response.arrayBuffer()),
    fetch(`${gateway.origin}/health`).then((response) => response.arrayBuffer()),
  ]);
}

beforeAll(async () => {
  // With Redis, so that the limiter's series exist too.
  redis = await startRedis();
  mock = await startMockUpstream();
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    models: { ...FAST_TEST_CONFIG.models, up: { upstreams: [{ baseUrl: mock.baseUrl, model: 'mock-model' }] } },
  }, { env: { MUNJA_METRICS_PORT: '0', REDIS_URL: redis.url } });
  ({ key } = await gateway.createKey());
  await someTraffic();
});
afterAll(async () => {
  await gateway.close();
  await mock.close();
  await redis.stop();
});

describe('the exposition', () => {
  it('passes promtool check metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${gateway.app.metricsPort}/metrics`)).text();
    expect(text).toContain('munja_requests_total{');
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(lint.error).toBeUndefined();
    expect(`${lint.stdout}${lint.stderr}`).toBe('');
    expect(lint.status).toBe(0);
  });
});

describe('the shipped rules and dashboard', () => {
  it('the rules pass promtool check rules', () => {
    const check = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(check.error).toBeUndefined();
    expect(check.stdout).toContain('SUCCESS');
    expect(check.status).toBe(0);
  });

  describe('with a real Prometheus scraping the gateway', () => {
    let prometheus: TestPrometheus;

    beforeAll(async () => {
      prometheus = await startPrometheus([`127.0.0.1:${gateway.app.metricsPort}`], [RULES]);
    }, 30_000);
    afterAll(() => prometheus?.stop());

    it('evaluates a recording rule over the scraped series', async () => {
      // Traffic keeps coming until a rate over two scrapes sees it.
      const query = 'munja:requests:rate5m{route="/v1/chat/completions",model="fast",status="200",outcome="ok"}';
      await expect.poll(async () => {
        await someTraffic();
        const answer = await prometheus.api('query', { query });
        expect(answer.status).toBe('success');
        const result = (answer.data as { result: Array<{ value: [number, string] }> }).result;
        return result.length === 1 ? Number(result[0]!.value[1]) : 0;
      }, { timeout: 30_000, interval: 300 }).toBeGreaterThan(0);
      const failed = await prometheus.api('query', { query: 'munja:requests:rate5m{outcome="stream_failed"}' });
      expect((failed.data as { result: unknown[] }).result.length).toBe(1);
    }, 40_000);

    it('loads every alert and evaluates it without error', async () => {
      const answer = await prometheus.api('rules', { type: 'alert' });
      const rules = (answer.data as { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> }).groups.flatMap((group) => group.rules);
      expect(rules.map((rule) => rule.name).sort()).toEqual(['MunjaEventLoopLag', 'MunjaGatewayOverheadHigh', 'MunjaHigh5xxRatio', 'MunjaLimiterFallback', 'MunjaUpstreamEjected']);
      // Evaluated at least once (1 s interval) and without error.
      await expect.poll(async () => {
        const again = await prometheus.api('rules', { type: 'alert' });
        return (again.data as typeof answer.data & { groups: Array<{ rules: typeof rules }> }).groups.flatMap((group) => group.rules).filter((rule) => rule.health !== 'ok');
      }, { interval: 300 }).toEqual([]);
    }, 20_000);

    it('accepts every query of the Grafana dashboard, and each names series that exist', async () => {
      const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets?: Array<{ expr: string }> }> };
      const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })));
      expect(queries.length).toBeGreaterThan(15);
      const names = await prometheus.api('label/__name__/values');
      const known = new Set(names.data as string[]);
      for (const { title, expr } of queries) {
        const concrete = expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.+').replaceAll('$model', '.+');
        const answer = await prometheus.api('query', { query: concrete });
        expect({ title, expr, status: answer.status, error: answer.error }).toEqual({ title, expr, status: 'success', error: undefined });
        for (const name of concrete.match(/\b(?:munja|nodejs|process)_[a-z0-9_]+/g) ?? []) {
          expect({ title, name, known: known.has(name) }).toEqual({ title, name, known: true });
        }
      }
    }, 30_000);
  });
});
