// Wires the parts together; holds no request logic.
import cluster from 'node:cluster';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { mountAdmin } from './admin/mount-admin.ts';
import { Authenticator } from './auth/authenticator.ts';
import type { Config } from './config/config-types.ts';
import { mountDashboard } from './dashboard/mount-dashboard.ts';
import { InFlight } from './dispatch/in-flight.ts';
import { KeyInFlight } from './dispatch/key-in-flight.ts';
import { RetryBudget } from './dispatch/retry-budget.ts';
import { UpstreamHealth } from './dispatch/upstream-health.ts';
import { EnginePool } from './engine/engine-pool.ts';
import { chatCompletions } from './handlers/chat-completions.ts';
import { protocolCompletion } from './protocols/protocol-endpoint.ts';
import { responsesFront } from './protocols/responses/responses-front.ts';
import { deleteStoredResponse, readStoredResponse, RESPONSES_PATH_PREFIX } from './protocols/responses/stored-response-routes.ts';
import { StoredResponses } from './protocols/responses/stored-responses.ts';
import { health, readiness } from './handlers/health.ts';
import { MODEL_PATH_PREFIX, listModels, retrieveModel } from './handlers/models.ts';
import { root } from './handlers/root.ts';
import { HttpServer } from './http/http-server.ts';
import { MCP_PATH } from './http/request-context.ts';
import { Router } from './http/router.ts';
import { Lifecycle } from './lifecycle/lifecycle.ts';
import { KeySecretWatch } from './lifecycle/key-secret-watch.ts';
import { RedisStatus } from './lifecycle/redis-status.ts';
import { loadMallocTrim, type MallocTrim } from './lifecycle/malloc-trim.ts';
import { collectAfterSurges } from './lifecycle/surge-collection.ts';
import { mcpPost, mcpPreflight } from './mcp/mcp-endpoint.ts';
import { OPENAPI_PATH, openApi } from './openapi/openapi-endpoint.ts';
import { countMessageTokens } from './protocols/messages/count-tokens.ts';
import { COUNT_TOKENS_PATH, MESSAGES_PATH } from './protocols/messages/messages-front.ts';
import type { Logger, LoggerHandle } from './observability/logger.ts';
import { GatewayMetrics, answerPrimaryScrapes } from './observability/metrics.ts';
import { type MetricsServer, renderRegistry, startMetricsServer } from './observability/metrics-server.ts';
import type { Tracing } from './observability/tracing.ts';
import type { Limiter } from './ratelimit/limiter.ts';
import { MemoryLimiter } from './ratelimit/memory-limiter.ts';
import type { BudgetGate } from './budget/budget-gate.ts';
import { openBudgets } from './budget/open-budgets.ts';
import { RedisLimiter } from './ratelimit/redis-limiter.ts';
import { openStore } from './store/open-store.ts';
import { setCommandTimeout } from './store/redis-connection.ts';
import type { Store } from './store/store.ts';
import { UsageRecorder } from './store/usage-recorder.ts';
import { UpstreamPools } from './upstream/upstream-pools.ts';
import { buildServingSet, type ServingBase } from './serving-set.ts';

export interface RunningApp {
  readonly port: number;
  readonly lifecycle: Lifecycle;
  readonly store: Store;
  /** Spend budgets (the config's and the records'). */
  readonly budgets: BudgetGate | null;
  /** The GET /metrics listener's port; null when off, and in a cluster worker (the primary serves it). */
  readonly metricsPort: number | null;
  /** Drains (bounded by the configured grace) and releases everything. True if nothing was cut off. */
  shutdown(): Promise<boolean>;
  /** TLS only: re-reads the certificate and key for new connections; throws, changing nothing, if they are unusable. */
  reloadTls(): void;
  /** The config being served: the start one, then the last one reload() applied. */
  readonly config: Config;
  /**
   * Serves `next` (a validated config whose restart-only settings are the running ones) from the
   * next request on; requests and streams already going finish with what they started with.
   */
  reload(next: Config): void;
}

/** How long a surge's upstream pools get to close before the collection runs anyway. */
const SURGE_RELEASE_WAIT_MS = 1_000;

export interface AppOptions {
  /** Where spans go instead of the OTLP export (tests); used only when tracing is configured. */
  readonly spanProcessor?: SpanProcessor;
}

export async function startApp(config: Config, logs: Pick<LoggerHandle, 'logger' | 'requestLog'>, options: AppOptions = {}): Promise<RunningApp> {
  const { logger, requestLog } = logs;
  const lifecycle = new Lifecycle();
  // The SDK is loaded only when tracing is on.
  const tracing: Tracing | null = config.tracing === null
    ? null
    : new (await import('./observability/tracing.ts')).Tracing(config.tracing, logger, options.spanProcessor);
  // Created first: a cluster worker must answer the primary's scrapes while it is still starting.
  const metrics = config.metrics === null ? null : new GatewayMetrics(config.models.map((model) => model.id));
  if (metrics !== null) answerPrimaryScrapes(metrics.registry);
  // ioredis reports every failed reconnect; the limiter and auth log outages themselves.
  const store = await openStore(config, { onError: (error) => logger.debug({ err: error }, 'redis connection error') });
  if (store.redis !== null && config.redis !== null) setCommandTimeout(store.redis, Math.max(config.redis.commandTimeoutMs, config.redis.connectTimeoutMs));
  const secret = await store.keySecret();
  const auth = new Authenticator({
    store,
    secret,
    defaultLimits: config.limits,
    cacheTtlMs: config.authCacheTtlMs,
  });
  await store.events.subscribe((event) => auth.forget(event));
  if (store.redis !== null && config.redis !== null) setCommandTimeout(store.redis, config.redis.commandTimeoutMs);
  const secretWatch = store.redis === null ? null : new KeySecretWatch({ client: store.redis, secret, logger, adopt: (next) => auth.useSecret(next) });
  // The secret check doubles as the liveness probe: one read a second notices a Redis that lost its data.
  const redisStatus = secretWatch === null ? null : new RedisStatus(store.redis!, { probe: () => secretWatch.check() });
  const limiter: Limiter = config.redis
    ? await RedisLimiter.open(config.redis, { settings: config.limits, logger })
    : new MemoryLimiter(config.limits);
  const budgets = await openBudgets(config, limiter, logger);
  const localModels = config.models.some((model) => model.target.kind === 'local');
  const engine = new EnginePool({ maxThreads: config.engine.threads, maxQueue: config.engine.maxQueue, taskDeadlineMs: config.engine.taskDeadlineMs, schemaMsPerMinute: config.engine.schemaMsPerMinute, localModels });
  const pools = new UpstreamPools(config.models, config.upstream);
  const usage = new UsageRecorder(store, logger);
  const upstreamHealth = new UpstreamHealth(config.resilience);
  const retryBudget = new RetryBudget(config.resilience.retry);
  const base: ServingBase = {
    store, auth, limiter, usage, budgets, engine, pools, health: upstreamHealth, retryBudget, inFlight: new InFlight(),
    keyInFlight: new KeyInFlight(config.maxInFlightPerKey), logger,
  };
  // Every route reads the current set once, when its request begins: a reload swaps it whole.
  let live = buildServingSet(config, base);
  const attachMetrics = () => metrics?.attach({ engine, pools, limiter, upstreamHealth, retryBudget, engineSignals: live.engineSignals ?? undefined, queue: live.queue ?? undefined });
  attachMetrics();
  const storedResponses = new StoredResponses(store, config.responses, logger);
  const responses = responsesFront(storedResponses, logger);
  const storedResponseDeps = { auth, stored: storedResponses };

  const router = new Router()
    .on('POST', '/v1/chat/completions', (ctx) => chatCompletions(live.chat, ctx))
    .on('POST', '/v1/responses', (ctx) => protocolCompletion(responses, live.chat, ctx))
    .onPrefix('GET', RESPONSES_PATH_PREFIX, (ctx) => readStoredResponse(storedResponseDeps, ctx), 2)
    .onPrefix('DELETE', RESPONSES_PATH_PREFIX, (ctx) => deleteStoredResponse(storedResponseDeps, ctx))
    .on('POST', MESSAGES_PATH, (ctx) => { const set = live; return protocolCompletion(set.messages, set.chat, ctx); })
    .on('POST', COUNT_TOKENS_PATH, (ctx) => { const set = live; return countMessageTokens(set.messages, set.chat, ctx); })
    .formatErrorsUnder(MESSAGES_PATH, live.messages.errorFormat)
    .on('GET', '/v1/models', (ctx) => listModels(live.models, ctx))
    .onPrefix('GET', MODEL_PATH_PREFIX, (ctx) => retrieveModel(live.models, ctx))
    .on('POST', MCP_PATH, (ctx) => mcpPost(live.mcp, ctx))
    .on('OPTIONS', MCP_PATH, (ctx) => mcpPreflight(live.mcp, ctx))
    .on('GET', '/health', health)
    .on('GET', OPENAPI_PATH, openApi)
    .on('GET', '/readyz', (ctx) => readiness(lifecycle, redisStatus, ctx));
  mountAdmin(router, { config, store, auth, limiter, cache: () => live.cache });
  await mountDashboard(router, { config, store, logger, budgets });
  if (config.dashboard.enabled) router.on('GET', '/', root);
  const server = new HttpServer({
    router, lifecycle, logger, requestLog, tls: config.tls, metrics, tracing, maxInFlight: config.maxInFlight, streamWriteStallMs: config.streamWriteStallMs,
    maxBufferedBodyBytes: config.maxBufferedBodyBytes, maxRequestsPerAddress: config.maxRequestsPerAddress, trustProxy: config.trustProxy,
  });
  const port = await server.listen(config.host, config.port);
  await engine.warmUp();
  live.engineSignals?.start();
  lifecycle.markReady();
  const stopSurgeCollection = collectAfterSurges({
    inFlight: () => lifecycle.inFlight,
    begun: () => lifecycle.begun,
    release: () => pools.renew(SURGE_RELEASE_WAIT_MS),
    trim: mallocTrimOrNull(logger),
    onCollected: ({ peakInFlight, peakBegun, cause, heapUsedBefore, heapUsedAfter, pauseMs, trim }) => {
      const mb = (bytes: number) => Math.round(bytes / 1e6);
      const trimmed = trim === undefined ? {} : { rssMbBeforeTrim: mb(trim.rssBefore), rssMbAfterTrim: mb(trim.rssAfter), trimPauseMs: Math.round(trim.pauseMs) };
      logger.info({ peakInFlight, peakPerSecond: peakBegun, cause, heapUsedMbBefore: mb(heapUsedBefore), heapUsedMbAfter: mb(heapUsedAfter), pauseMs: Math.round(pauseMs), ...trimmed }, 'memory collected after a surge');
    },
  });
  let metricsServer: MetricsServer | null = null;
  if (metrics !== null && config.metrics !== null && !cluster.isWorker) {
    metricsServer = await startMetricsServer(config.metrics, renderRegistry(metrics.registry), logger);
  }

  return {
    port,
    lifecycle,
    store,
    budgets,
    metricsPort: metricsServer?.port ?? null,
    reloadTls: () => server.reloadTls(),
    get config() {
      return live.config;
    },
    reload(next: Config): void {
      const previous = live;
      if (JSON.stringify(next.limits) !== JSON.stringify(previous.config.limits)) {
        limiter.useSettings(next.limits);
        auth.useDefaultLimits(next.limits);
      }
      pools.reconfigure(next.models, next.upstream);
      live = buildServingSet(next, base, previous);
      if (live.engineSignals !== previous.engineSignals) {
        live.engineSignals?.start();
        void previous.engineSignals?.close();
      }
      attachMetrics();
    },
    async shutdown(): Promise<boolean> {
      const drain = lifecycle.drain(config.shutdownGraceMs);
      server.stopListening();
      const drained = await drain;
      lifecycle.phase = 'stopped';
      stopSurgeCollection();
      server.close();
      redisStatus?.close();
      secretWatch?.close();
      await Promise.allSettled([live.engineSignals?.close(), metricsServer?.close(), engine.close(), pools.close(), usage.close(), limiter.close(), budgets?.ledger.close(), tracing?.shutdown()]);
      await store.close();
      logger.info({ drained }, 'stopped');
      return drained;
    },
  };
}

function mallocTrimOrNull(logger: Logger): MallocTrim | null {
  try {
    return loadMallocTrim();
  } catch (error) {
    logger.warn({ err: error }, 'the native memory trim module did not load; freed native memory stays resident after surges');
    return null;
  }
}
