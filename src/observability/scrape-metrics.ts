// The series read at scrape time from the parts that keep their own state: open streams, upstream
// pools and health, the local engine, the Redis limiter's fallbacks, and the build.
import { Gauge, type Registry } from 'prom-client';
import type { UpstreamHealthStats } from '../dispatch/upstream-health.ts';
import type { EnginePoolStats } from '../engine/engine-pool.ts';
import type { LimiterMetrics } from '../ratelimit/redis-limiter.ts';
import type { EngineSignalStats } from '../upstream/engine-signals.ts';
import { openStreams } from './open-streams.ts';
import { BUILD_VERSION } from './build-info.ts';
import { ReadCounter } from './keyed-metrics.ts';

/** What the scrape-time series read. */
export interface MetricSources {
  readonly engine?: { stats(): EnginePoolStats };
  readonly pools?: { stats(): Record<string, { connected: number; running: number; pending: number }> };
  /** The Redis limiter's counters; absent with the in-memory limiter. */
  readonly limiter?: { readonly metrics: LimiterMetrics } | object;
  readonly upstreamHealth?: { stats(): UpstreamHealthStats };
  readonly retryBudget?: { readonly spent: number };
  /** The polled engines' load; absent when no upstream declares an engine. */
  readonly engineSignals?: { stats(): EngineSignalStats[]; readonly failedPolls: number };
  /** Requests waiting per model; absent when no model is chosen by load. */
  readonly queue?: { stats(): Record<string, number> };
}

export function registerScrapeMetrics(registry: Registry, sources: () => MetricSources): void {
  const registers = [registry];
  // One series per process; the cluster sum would count workers, so the primary reports the first.
  new Gauge({ name: 'munja_build_info', help: 'Always 1; the labels say which build runs.', labelNames: ['version', 'nodejs_version'], registers, aggregator: 'first' })
    .set({ version: BUILD_VERSION, nodejs_version: process.version }, 1);
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
  const engine = (name: string, help: string, read: (stats: EnginePoolStats) => number) => new Gauge({
    name, help, registers,
    collect() {
      const stats = sources().engine?.stats();
      if (stats !== undefined) this.set(read(stats));
    },
  });
  engine('munja_engine_queued_tasks', 'Local engine work waiting for a thread: batches of tasks queued, plus the tasks of the current turn not yet sent.', (stats) => stats.queued);
  engine('munja_engine_tasks', 'Local engine tasks accepted and not yet over (queued or running).', (stats) => stats.tasks);
  engine('munja_engine_threads', 'Local engine threads running.', (stats) => stats.threads);
  engine('munja_engine_max_threads', 'The most threads the local engine runs: its capacity.', (stats) => stats.maxThreads);
  const limiter = (): LimiterMetrics | null => {
    const source = sources().limiter;
    return source !== undefined && 'metrics' in source ? source.metrics : null;
  };
  const counters = [
    // rate() of it over munja_engine_max_threads is the engine's utilisation over that window.
    new ReadCounter('munja_engine_busy_seconds_total', 'Thread time the local engine spent running tasks.', () => {
      const stats = sources().engine?.stats();
      return stats === undefined ? null : stats.busyMs / 1000;
    }),
    new ReadCounter('munja_limiter_backend_errors_total', 'Redis limiter operations whose call failed or missed its deadline.', () => limiter()?.backendErrors ?? null),
    new ReadCounter('munja_limiter_local_decisions_total', 'Rate-limit decisions taken locally (fallback) because Redis could not answer.', () => limiter()?.localDecisions ?? null),
    new ReadCounter('munja_limiter_failed_closed_total', 'Requests refused with 503 limiter_unavailable while Redis could not answer.', () => limiter()?.failedClosed ?? null),
    new ReadCounter('munja_upstream_retries_total', 'Second attempts sent to an upstream after a failure before the response started.', () => sources().retryBudget?.spent ?? null),
    new ReadCounter('munja_upstream_ejections_total', 'Upstreams ejected by their circuit breaker.', () => sources().upstreamHealth?.stats().ejections ?? null),
    new ReadCounter('munja_upstream_engine_poll_failures_total', "Polls of an upstream engine's metrics that failed, timed out or held none of its load's names.",
      () => sources().engineSignals?.failedPolls ?? null),
    new ReadCounter('munja_upstream_restorations_total', 'Ejected upstreams restored after a successful trial request.', () => sources().upstreamHealth?.stats().restorations ?? null),
  ];
  for (const counter of counters) registry.registerMetric(counter as never);
  // Every worker polls the same engines: a cluster scrape reports the largest reading, not a sum.
  const engineGauge = (name: string, help: string, read: (stats: EngineSignalStats) => number | null) => new Gauge({
    name, help, labelNames: ['origin', 'engine'], registers, aggregator: 'max',
    collect() {
      this.reset();
      for (const stats of sources().engineSignals?.stats() ?? []) {
        const value = read(stats);
        if (value !== null) this.set({ origin: stats.origin, engine: stats.engine }, value);
      }
    },
  });
  engineGauge('munja_upstream_engine_requests_waiting', "Requests waiting in an upstream engine's queue, as its last sample said.", (stats) => stats.load?.waiting ?? null);
  engineGauge('munja_upstream_engine_requests_running', "Requests in an upstream engine's running batch, as its last sample said.", (stats) => stats.load?.running ?? null);
  engineGauge('munja_upstream_engine_kv_cache_usage', "Share of an upstream engine's KV cache in use (0-1), as its last sample said.", (stats) => stats.load?.kvCacheUsage ?? null);
  engineGauge('munja_upstream_engine_stale', "1 when an upstream engine's load is older than three polls or never read (it then counts as saturated).", (stats) => (stats.stale ? 1 : 0));
  new Gauge({
    name: 'munja_queue_waiting', help: 'Requests waiting in the admission queue now, by model.', labelNames: ['model'], registers,
    collect() {
      this.reset();
      const stats = sources().queue?.stats() ?? {};
      for (const model in stats) this.set({ model }, stats[model]!);
    },
  });
  new Gauge({
    name: 'munja_upstreams_ejected', help: 'Upstreams currently ejected by their circuit breaker (open or half-open).', registers,
    collect() {
      const stats = sources().upstreamHealth?.stats();
      if (stats !== undefined) this.set(stats.ejected);
    },
  });
}
