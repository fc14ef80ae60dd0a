// Prometheus metrics for GET /metrics (served by observability/metrics-server.ts).
//
// The per-request path records into plain numbers: one Map lookup (small-integer key) and a few
// additions per series, measured at ~0.1–0.3 µs per request (bench/micro/metrics.bench.ts). prom-client's
// own labelled children hash and validate their labels on every call (~0.3 µs per counter inc,
// ~0.7 µs per histogram observe), so they are only used for the gauges read at scrape time; the
// per-request series are registered as metric objects whose get() returns prom-client's JSON shape,
// which both its text format and its cluster aggregation (AggregatorRegistry) consume.
//
// Label cardinality is bounded: model is a configured id, `other` (an unknown name) or `none` (no
// model named, e.g. a 401 or GET /v1/models); status is an HTTP status code (499: client closed).
import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { EnginePoolStats } from '../engine/engine-pool.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { UpstreamHealthStats } from '../dispatch/upstream-health.ts';
import type { LimiterMetrics } from '../ratelimit/redis-limiter.ts';
import { openStreams } from '../streaming/sse-writer.ts';

const COMPLETIONS_PATH = '/v1/chat/completions';

/** Seconds: from a sub-millisecond 429 to a long stream. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: the gateway's own time is normally well under a millisecond. */
export const OVERHEAD_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Error codes counted as rate-limit rejections (the 429s, and the limiter's fail-closed 503). */
export const REJECTION_REASONS = ['rate_limit_exceeded', 'upstream_rate_limited', 'sign_in_throttled', 'limiter_unavailable'] as const;

type Labels = Record<string, string | number>;
interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}
interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

/** A counter whose series are keyed by a small integer; each series' labels are built once. */
class KeyedCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly #series = new Map<number, MetricValue>();
  readonly name: string;
  readonly help: string;
  readonly #labelsOf: (key: number) => Labels;

  constructor(name: string, help: string, labelsOf: (key: number) => Labels, preset: readonly number[] = []) {
    this.name = name;
    this.help = help;
    this.#labelsOf = labelsOf;
    for (const key of preset) this.add(key, 0);
  }

  add(key: number, by: number): void {
    const series = this.#series.get(key);
    if (series !== undefined) series.value += by;
    else this.#series.set(key, { labels: this.#labelsOf(key), value: by });
  }

  get(): MetricData {
    const values = [...this.#series.values()].map((series) => ({ labels: { ...series.labels }, value: series.value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface HistogramSeries {
  readonly labels: Labels;
  /** Per bucket (not cumulative); the last slot is above the highest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** A histogram keyed like KeyedCounter; get() gives prom-client's _bucket/_sum/_count values. */
class KeyedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<number, HistogramSeries>();
  readonly name: string;
  readonly help: string;
  readonly #bounds: readonly number[];
  readonly #labelsOf: (key: number) => Labels;

  constructor(name: string, help: string, bounds: readonly number[], labelsOf: (key: number) => Labels) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
    this.#labelsOf = labelsOf;
  }

  observe(key: number, value: number): void {
    let series = this.#series.get(key);
    if (series === undefined) {
      series = { labels: this.#labelsOf(key), counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++;
    series.counts[bucket]! += 1;
    series.sum += value;
    series.count += 1;
  }

  get(): MetricData {
    const values: MetricValue[] = [];
    for (const series of this.#series.values()) {
      let cumulative = 0;
      for (let index = 0; index < this.#bounds.length; index++) {
        cumulative += series.counts[index]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: this.#bounds[index]! }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...series.labels }, value: series.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...series.labels }, value: series.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A counter kept elsewhere (the limiter's), read at scrape time. */
class ReadCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #read: () => number | null;

  constructor(name: string, help: string, read: () => number | null) {
    this.name = name;
    this.help = help;
    this.#read = read;
  }

  get(): MetricData {
    const value = this.#read();
    return { name: this.name, help: this.help, type: this.type, values: value === null ? [] : [{ labels: {}, value }], aggregator: this.aggregator };
  }
}

/** What the scrape-time gauges read. */
export interface MetricSources {
  readonly engine?: { stats(): EnginePoolStats };
  readonly pools?: { stats(): Record<string, { connected: number; running: number; pending: number }> };
  /** The Redis limiter's counters; absent with the in-memory limiter. */
  readonly limiter?: { readonly metrics: LimiterMetrics } | object;
  readonly upstreamHealth?: { stats(): UpstreamHealthStats };
  readonly retryBudget?: { readonly spent: number };
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #modelIndex: Map<string, number>;
  readonly #other: number;
  readonly #none: number;
  readonly #requests: KeyedCounter;
  readonly #duration: KeyedHistogram;
  readonly #overhead: KeyedHistogram;
  readonly #firstToken: KeyedHistogram;
  readonly #tokens: KeyedCounter;
  readonly #rejections: KeyedCounter;
  #sources: MetricSources = {};

  /** `models`: the configured ids, the only model label values besides `other` and `none`. */
  constructor(models: readonly string[]) {
    const names = [...models, 'other', 'none'];
    this.#modelIndex = new Map(models.map((id, index) => [id, index]));
    this.#other = models.length;
    this.#none = models.length + 1;
    const byModelAndStream = (key: number): Labels => ({ model: names[key >> 1]!, stream: key & 1 ? 'true' : 'false' });
    this.#requests = new KeyedCounter('munja_requests_total', 'Requests answered, by model and HTTP status (499: the client closed first).',
      (key) => ({ model: names[key >> 10]!, status: String(key & 1023) }));
    this.#duration = new KeyedHistogram('munja_request_duration_seconds', 'Chat completion requests: total time, arrival to end of response.', DURATION_BUCKETS, byModelAndStream);
    this.#overhead = new KeyedHistogram('munja_gateway_overhead_seconds',
      "Chat completions that reached their model: total time minus the time spent waiting on the engine or upstream.", OVERHEAD_BUCKETS, byModelAndStream);
    this.#firstToken = new KeyedHistogram('munja_time_to_first_token_seconds', 'Streamed chat completions: arrival to the first streamed event.', DURATION_BUCKETS,
      (key) => ({ model: names[key]! }));
    this.#tokens = new KeyedCounter('munja_tokens_total', 'Tokens billed, by model and direction (in: prompt, out: completion).',
      (key) => ({ model: names[key >> 1]!, direction: key & 1 ? 'out' : 'in' }));
    this.#rejections = new KeyedCounter('munja_rate_limit_rejections_total', 'Requests refused by a rate limit, by error code.',
      (key) => ({ reason: REJECTION_REASONS[key] ?? 'other' }), REJECTION_REASONS.map((_, index) => index));
    for (const metric of [this.#requests, this.#duration, this.#overhead, this.#firstToken, this.#tokens, this.#rejections]) {
      this.registry.registerMetric(metric as never);
    }
    this.#registerGauges();
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*): the lag is how
    // an overload shows before anything is shed.
    collectDefaultMetrics({ register: this.registry, prefix: 'munja_' });
  }

  /** Sets what the scrape-time gauges read (they report nothing until then). */
  attach(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** Records one finished request; called once per request, after its response. */
  observe(ctx: RequestContext): void {
    const model = ctx.model === null ? this.#none : (this.#modelIndex.get(ctx.model) ?? this.#other);
    const status = ctx.aborted && !ctx.finished ? 499 : ctx.status;
    this.#requests.add(model * 1024 + (status & 1023), 1);
    if (status === 429 || ctx.errorCode === 'limiter_unavailable') {
      const reason = REJECTION_REASONS.indexOf(ctx.errorCode as (typeof REJECTION_REASONS)[number]);
      this.#rejections.add(reason === -1 ? REJECTION_REASONS.length : reason, 1);
    }
    if (ctx.path !== COMPLETIONS_PATH) return;
    const key = model * 2 + (ctx.stream ? 1 : 0);
    const totalMs = ctx.elapsedMs();
    this.#duration.observe(key, totalMs / 1000);
    if (ctx.targetMs !== null) this.#overhead.observe(key, Math.max(0, totalMs - ctx.targetMs) / 1000);
    if (ctx.firstEventMs !== null) this.#firstToken.observe(model, ctx.firstEventMs / 1000);
    if (ctx.promptTokens > 0) this.#tokens.add(model * 2, ctx.promptTokens);
    if (ctx.completionTokens > 0) this.#tokens.add(model * 2 + 1, ctx.completionTokens);
  }

  #registerGauges(): void {
    const registers = [this.registry];
    const sources = () => this.#sources;
    new Gauge({ name: 'munja_open_streams', help: 'SSE responses currently open.', registers, collect() { this.set(openStreams.count); } });
    const pool = (name: string, field: 'connected' | 'running' | 'pending', help: string) => new Gauge({
      name, help, labelNames: ['origin'], registers,
      collect() {
        this.reset();
        const stats = sources().pools?.stats() ?? {};
        for (const origin in stats) this.set({ origin }, stats[origin]![field]);
      },
    });
    pool('munja_upstream_connections', 'connected', 'Open connections per upstream origin.');
    pool('munja_upstream_running_requests', 'running', 'Requests in flight per upstream origin.');
    pool('munja_upstream_pending_requests', 'pending', 'Requests waiting for a connection per upstream origin.');
    const engine = (name: string, help: string, read: (stats: EnginePoolStats) => number, aggregator: 'sum' | 'average' = 'sum') => new Gauge({
      name, help, registers, aggregator,
      collect() {
        const stats = sources().engine?.stats();
        if (stats !== undefined) this.set(read(stats));
      },
    });
    engine('munja_engine_queued_tasks', 'Local engine tasks waiting for a thread.', (stats) => stats.queued);
    engine('munja_engine_threads', 'Local engine threads running.', (stats) => stats.threads);
    engine('munja_engine_utilization', 'Share of the local engine pool capacity spent running tasks since start (0-1; averaged over workers).',
      (stats) => stats.utilization, 'average');
    const limiter = (): LimiterMetrics | null => {
      const source = sources().limiter;
      return source !== undefined && 'metrics' in source ? source.metrics : null;
    };
    const counters = [
      new ReadCounter('munja_limiter_backend_errors_total', 'Redis limiter operations whose call failed or missed its deadline.', () => limiter()?.backendErrors ?? null),
      new ReadCounter('munja_limiter_local_decisions_total', 'Rate-limit decisions taken locally (fallback) because Redis could not answer.', () => limiter()?.localDecisions ?? null),
      new ReadCounter('munja_limiter_failed_closed_total', 'Requests refused with 503 limiter_unavailable while Redis could not answer.', () => limiter()?.failedClosed ?? null),
      new ReadCounter('munja_upstream_retries_total', 'Second attempts sent to an upstream after a failure before the response started.', () => sources().retryBudget?.spent ?? null),
      new ReadCounter('munja_upstream_ejections_total', 'Upstreams ejected by their circuit breaker.', () => sources().upstreamHealth?.stats().ejections ?? null),
      new ReadCounter('munja_upstream_restorations_total', 'Ejected upstreams restored after a successful trial request.', () => sources().upstreamHealth?.stats().restorations ?? null),
    ];
    for (const counter of counters) this.registry.registerMetric(counter as never);
    new Gauge({
      name: 'munja_upstreams_ejected', help: 'Upstreams currently ejected by their circuit breaker (open or half-open).', registers,
      collect() {
        const stats = sources().upstreamHealth?.stats();
        if (stats !== undefined) this.set(stats.ejected);
      },
    });
  }
}

/**
 * In a cluster worker: answers the primary's scrape requests (prom-client's IPC messages) from this
 * registry. Call early, so that a worker still starting answers (empty) instead of timing out.
 */
export function answerPrimaryScrapes(registry: Registry): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry(); // installs the worker's message listener (once per process)
}
