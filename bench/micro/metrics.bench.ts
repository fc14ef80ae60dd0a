// Per-request cost of the metrics observation (GatewayMetrics.observe, called once per finished
// request), against prom-client's own labelled children for reference.
// Run: node bench/micro/metrics.bench.ts   (a few seconds; prints a markdown table)
import { cpus } from 'node:os';
import { Counter, Histogram, Registry } from 'prom-client';
import type { RequestContext } from '../../src/http/request-context.ts';
import { DURATION_BUCKETS, GatewayMetrics } from '../../src/observability/metrics.ts';
import { type Timing, timeSync, timingTable } from './timing.ts';

const MODELS = ['auto', 'default', 'pro', 'fast', 'hrllm'];

/** The fields observe() reads, as a finished request leaves them. */
function finished(overrides: Partial<RequestContext>): RequestContext {
  const startedAt = performance.now();
  return {
    path: '/v1/chat/completions', route: '/v1/chat/completions', model: 'fast', status: 200, aborted: false, finished: true, stream: false,
    errorCode: null, promptTokens: 18, completionTokens: 64, targetMs: 0.4, firstEventMs: null, streamOpened: false,
    elapsedMs: () => performance.now() - startedAt,
    ...overrides,
  } as unknown as RequestContext;
}

const metrics = new GatewayMetrics(MODELS);
const json = finished({});
const stream = finished({ stream: true, model: 'pro', firstEventMs: 0.3 });
const refused = finished({ status: 429, model: 'default', errorCode: 'rate_limit_exceeded', promptTokens: 0, completionTokens: 0, targetMs: null });
const other = finished({ path: '/v1/models', route: '/v1/models', model: null, targetMs: null, promptTokens: 0, completionTokens: 0 });

const timings: Timing[] = [];
timings.push(await timeSync('observe: chat completion, JSON 200 (counter + 2 histograms + 2 token counters)', () => metrics.observe(json)));
timings.push(await timeSync('observe: chat completion, stream 200 (+ time to first token)', () => metrics.observe(stream)));
timings.push(await timeSync('observe: 429 (counter + rejection + 1 histogram)', () => metrics.observe(refused)));
timings.push(await timeSync('observe: GET /v1/models (counter only)', () => metrics.observe(other)));

// Reference: the same work for a JSON 200 through prom-client's cached label children.
const registry = new Registry();
const requests = new Counter({ name: 'r', help: 'r', labelNames: ['model', 'status'], registers: [registry] }).labels('fast', '200');
const duration = new Histogram({ name: 'd', help: 'd', labelNames: ['model', 'stream'], buckets: [...DURATION_BUCKETS], registers: [registry] }).labels('fast', 'false');
const overhead = new Histogram({ name: 'o', help: 'o', labelNames: ['model', 'stream'], registers: [registry] }).labels('fast', 'false');
const tokens = new Counter({ name: 't', help: 't', labelNames: ['model', 'direction'], registers: [registry] });
const tokensIn = tokens.labels('fast', 'in');
const tokensOut = tokens.labels('fast', 'out');
timings.push(await timeSync('↳ (reference) prom-client cached children, same series as a JSON 200', () => {
  requests.inc();
  duration.observe(json.elapsedMs() / 1000);
  overhead.observe(0.0002);
  tokensIn.inc(18);
  tokensOut.inc(64);
}));
timings.push(await timeSync('↳ (reference) scrape: registry.metrics() text', () => metrics.registry.metrics()));

process.stdout.write(`# Munja metrics observation (${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'})\n\n${timingTable(timings)}\n`);
