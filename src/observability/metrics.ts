// Prometheus metrics for GET /metrics (served by observability/metrics-server.ts).
//
// The per-request path records into plain numbers: one Map lookup (small-integer key) and a few
// additions per series, measured at ~0.1–0.3 µs per request (bench/micro/metrics.bench.ts). prom-client's
// own labelled children hash and validate their labels on every call (~0.3 µs per counter inc,
// ~0.7 µs per histogram observe), so they are only used for the series read at scrape time
// (scrape-metrics.ts); the per-request series are keyed-metrics.ts objects.
//
// Label cardinality is bounded: route is a route's name (http/router.ts) or `unmatched`; model,
// only on the completion routes (chat, Messages), is a configured id, `other` (an unknown name) or `none` (the
// request was refused before it named one); status is an HTTP status code (499: client closed);
// outcome one of OUTCOMES (request-outcome.ts); code an error code from the catalogue.
import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import { BANDS } from '../dispatch/fair-queue.ts';
import { ERROR_CATALOGUE } from '../errors/catalogue.ts';
import type { RequestRecord } from './request-record.ts';
import { KeyedCounter, KeyedHistogram, type Labels } from './keyed-metrics.ts';
import { finalStatus, OUTCOMES, outcomeIndex } from './request-outcome.ts';
import { type MetricSources, registerScrapeMetrics } from './scrape-metrics.ts';

export type { MetricSources };

/** The routes whose requests are completions of a model (chat, Messages): the only ones whose series carry a `model` label. */
const COMPLETION_ROUTES: ReadonlySet<string> = new Set(['/v1/chat/completions', '/v1/messages']);

/** Seconds: from a sub-millisecond 429 to a long stream. */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds: the gateway's own time is normally well under a millisecond. */
export const OVERHEAD_BUCKETS: readonly number[] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Error codes counted as rate-limit rejections (the 429s, and the limiter's fail-closed 503). */
export const REJECTION_REASONS = ['rate_limit_exceeded', 'upstream_rate_limited', 'sign_in_throttled', 'limiter_unavailable', 'budget_exceeded'] as const;

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const ERROR_CODES = Object.keys(ERROR_CATALOGUE);
const ERROR_CODE_INDEX = new Map(ERROR_CODES.map((code, index) => [code, index]));

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #modelIndex: Map<string, number>;
  readonly #models: number;
  readonly #other: number;
  readonly #none: number;
  /** Route names by first appearance; the router bounds them. */
  readonly #routeIndex = new Map<string, number>();
  readonly #routes: string[] = [];
  readonly #requests: KeyedCounter;
  readonly #errors: KeyedCounter;
  readonly #duration: KeyedHistogram;
  readonly #overhead: KeyedHistogram;
  readonly #firstToken: KeyedHistogram;
  readonly #tokens: KeyedCounter;
  readonly #rejections: KeyedCounter;
  readonly #spend: KeyedCounter;
  readonly #queueWait: KeyedHistogram;
  #sources: MetricSources = {};

  /** `models`: the configured ids, the only model label values besides `other` and `none`. */
  constructor(models: readonly string[]) {
    const names = [...models, 'other', 'none'];
    this.#modelIndex = new Map(models.map((id, index) => [id, index]));
    this.#models = names.length;
    this.#other = models.length;
    this.#none = models.length + 1;
    const byModelAndStream = (key: number): Labels => ({ model: names[key >> 1]!, stream: key & 1 ? 'true' : 'false' });
    // key: ((route × models + model) × 1024 + status) × 4 + outcome
    this.#requests = new KeyedCounter('munja_requests_total', 'Requests answered, by route, model (completions only: chat, Messages), HTTP status (499: the client closed first) and outcome.',
      (key) => {
        const route = this.#routes[Math.floor(key / 4096 / this.#models)]!;
        const labels: Labels = { route };
        if (COMPLETION_ROUTES.has(route)) labels.model = names[Math.floor(key / 4096) % this.#models]!;
        labels.status = String((key >> 2) & 1023);
        labels.outcome = OUTCOMES[key & 3]!;
        return labels;
      });
    this.#errors = new KeyedCounter('munja_request_errors_total', 'Requests that ended in an error, by route and error code; a stream that failed after it started counts too.',
      (key) => ({ route: this.#routes[Math.floor(key / (ERROR_CODES.length + 1))]!, code: ERROR_CODES[key % (ERROR_CODES.length + 1)] ?? 'other' }));
    this.#duration = new KeyedHistogram('munja_request_duration_seconds', 'Completion requests (chat, Messages): total time, arrival to end of response.', DURATION_BUCKETS, byModelAndStream);
    this.#overhead = new KeyedHistogram('munja_gateway_overhead_seconds',
      "Completions (chat, Messages) that reached their model: total time minus the time spent waiting on the engine or upstream.", OVERHEAD_BUCKETS, byModelAndStream);
    this.#firstToken = new KeyedHistogram('munja_time_to_first_token_seconds', 'Streamed completions (chat, Messages): arrival to the first streamed event.', DURATION_BUCKETS,
      (key) => ({ model: names[key]! }));
    this.#tokens = new KeyedCounter('munja_tokens_total', 'Tokens billed, by model and direction (in: prompt, out: completion).',
      (key) => ({ model: names[key >> 1]!, direction: key & 1 ? 'out' : 'in' }));
    this.#rejections = new KeyedCounter('munja_rate_limit_rejections_total', 'Requests refused by a rate limit, by error code.',
      (key) => ({ reason: REJECTION_REASONS[key] ?? 'other' }), REJECTION_REASONS.map((_, index) => index));
    this.#spend = new KeyedCounter('munja_spend_micros_total', 'What completions cost, in micro-units of the configured currency (budgets.currency), by model; unpriced models add nothing.',
      (key) => ({ model: names[key]! }));
    this.#queueWait = new KeyedHistogram('munja_queue_wait_seconds', 'Requests that waited in the admission queue (their model saturated): the wait, by model and priority band, whether they were then sent, refused or left.',
      DURATION_BUCKETS, (key) => ({ model: names[Math.floor(key / BANDS.length)]!, priority: BANDS[key % BANDS.length]! }));
    for (const metric of [this.#requests, this.#errors, this.#duration, this.#overhead, this.#firstToken, this.#tokens, this.#rejections, this.#spend, this.#queueWait]) {
      this.registry.registerMetric(metric as never);
    }
    registerScrapeMetrics(this.registry, () => this.#sources);
    // Process CPU, memory, handles, GC and event-loop lag (nodejs_eventloop_lag_*), under the
    // standard names that stock Node.js dashboards query.
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which promtool's lint refuses; each is the sum of the labelled
    // gauge of the same name without `_total` (e.g. sum(nodejs_active_handles)).
    for (const name of LINT_FAILING_DEFAULTS) this.registry.removeSingleMetric(name);
  }

  /** Sets what the scrape-time series read (they report nothing until then). */
  attach(sources: MetricSources): void {
    this.#sources = sources;
  }

  /** Records one finished request; called once per request, after its response. */
  observe(ctx: RequestRecord): void {
    const route = this.#route(ctx.route);
    const chat = COMPLETION_ROUTES.has(ctx.route);
    const model = ctx.model === null ? this.#none : (this.#modelIndex.get(ctx.model) ?? this.#other);
    const status = finalStatus(ctx);
    this.#requests.add(((route * this.#models + (chat ? model : 0)) * 1024 + (status & 1023)) * 4 + outcomeIndex(ctx), 1);
    if (ctx.errorCode !== null) {
      this.#errors.add(route * (ERROR_CODES.length + 1) + (ERROR_CODE_INDEX.get(ctx.errorCode) ?? ERROR_CODES.length), 1);
      if (status === 429 || ctx.errorCode === 'limiter_unavailable') {
        const reason = REJECTION_REASONS.indexOf(ctx.errorCode as (typeof REJECTION_REASONS)[number]);
        this.#rejections.add(reason === -1 ? REJECTION_REASONS.length : reason, 1);
      }
    }
    if (ctx.queuedMs !== null) this.#queueWait.observe(model * BANDS.length + BANDS.indexOf(ctx.queuePriority!), ctx.queuedMs / 1000);
    if (!chat) return;
    const key = model * 2 + (ctx.stream ? 1 : 0);
    const totalMs = ctx.elapsedMs();
    this.#duration.observe(key, totalMs / 1000);
    if (ctx.targetMs !== null) this.#overhead.observe(key, Math.max(0, totalMs - ctx.targetMs) / 1000);
    if (ctx.firstEventMs !== null) this.#firstToken.observe(model, ctx.firstEventMs / 1000);
    if (ctx.promptTokens > 0) this.#tokens.add(model * 2, ctx.promptTokens);
    if (ctx.completionTokens > 0) this.#tokens.add(model * 2 + 1, ctx.completionTokens);
    if (ctx.cost > 0) this.#spend.add(model, ctx.cost);
  }

  #route(name: string): number {
    let index = this.#routeIndex.get(name);
    if (index === undefined) {
      index = this.#routes.push(name) - 1;
      this.#routeIndex.set(name, index);
    }
    return index;
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
