// What serving a request needs that a config reload may change: the model catalog and routing, the
// upstream dispatch settings, engine-signal polling, the response cache, MCP origins. A reload
// builds a whole new set and the app swaps it in with one assignment; a request keeps the set it
// started with to its end (its stream included), so nothing in flight sees half of each.
import type { Authenticator } from './auth/authenticator.ts';
import type { BudgetGate } from './budget/budget-gate.ts';
import { RedisReplyStore } from './cache/redis-reply-store.ts';
import { ResponseCache } from './cache/response-cache.ts';
import type { Config } from './config/config-types.ts';
import type { DispatchDeps } from './dispatch/dispatch.ts';
import { AdmissionQueue } from './dispatch/admission-queue.ts';
import { EngineChoice } from './dispatch/engine-choice.ts';
import type { InFlight } from './dispatch/in-flight.ts';
import type { KeyInFlight } from './dispatch/key-in-flight.ts';
import type { RetryBudget } from './dispatch/retry-budget.ts';
import type { UpstreamHealth } from './dispatch/upstream-health.ts';
import type { EnginePool } from './engine/engine-pool.ts';
import type { ChatCompletionsDeps } from './handlers/chat-completions.ts';
import { OriginPolicy } from './mcp/origin-policy.ts';
import { ModelCatalog } from './models/model-catalog.ts';
import { RouteChoice } from './models/route-choice.ts';
import type { Logger } from './observability/logger.ts';
import { AnthropicModels } from './protocols/messages/anthropic-models.ts';
import { MessagesFront } from './protocols/messages/messages-front.ts';
import type { Limiter } from './ratelimit/limiter.ts';
import type { StoreWithEvents } from './store/publishing-store.ts';
import type { UsageRecorder } from './store/usage-recorder.ts';
import { EngineSignals } from './upstream/engine-signals.ts';
import type { UpstreamPools } from './upstream/upstream-pools.ts';

/** What every set shares: built once at start, whatever the config says later. */
export interface ServingBase {
  readonly store: StoreWithEvents;
  readonly auth: Authenticator;
  readonly limiter: Limiter;
  readonly usage: UsageRecorder;
  readonly budgets: BudgetGate | null;
  readonly engine: EnginePool;
  /** One per process; a reload changes the Pool of the origins whose settings changed. */
  readonly pools: UpstreamPools;
  readonly health: UpstreamHealth;
  readonly retryBudget: RetryBudget;
  readonly inFlight: InFlight;
  readonly keyInFlight: KeyInFlight;
  readonly logger: Logger;
}

export interface ServingSet {
  readonly config: Config;
  readonly catalog: ModelCatalog;
  readonly chat: ChatCompletionsDeps;
  readonly models: { readonly catalog: ModelCatalog; readonly auth: Authenticator; readonly anthropicModels: AnthropicModels };
  readonly mcp: ChatCompletionsDeps & { readonly logger: Logger; readonly origins: OriginPolicy };
  readonly messages: MessagesFront;
  /** Null unless a model asks for engine-aware routing; the app starts and closes it. */
  readonly engineSignals: EngineSignals | null;
  readonly engines: EngineChoice | null;
  /** Requests wait here while every upstream of their model is full; null without engine-aware routing. */
  readonly queue: AdmissionQueue | null;
  readonly cache: ResponseCache | null;
}

/**
 * The set for `config`. With `previous`, what did not change is carried over: the response cache
 * and its entries, the engine-signal poller with what it learnt, the catalog's creation time.
 */
export function buildServingSet(config: Config, base: ServingBase, previous: ServingSet | null = null): ServingSet {
  const { auth, limiter, usage, budgets, engine, pools, health, retryBudget, inFlight, keyInFlight, logger, store } = base;
  const catalog = new ModelCatalog(config.models, previous?.catalog.createdAt);
  const { engineSignals, engines, queue } = previous !== null && sameEngineSignalSettings(previous.config, config) ? previous : newEngineSignals(config, base);
  const dispatch: DispatchDeps = {
    engine, pools, timeouts: config.upstream, health, retryBudget, inFlight, resilience: config.resilience, engines: engines ?? undefined, queue: queue ?? undefined,
  };
  const routes = new RouteChoice(health, inFlight);
  const cache = previous !== null && sameCacheSettings(previous.config, config) ? previous.cache : newCache(config, store);
  const chat: ChatCompletionsDeps = { config, catalog, routes, keyInFlight, auth, limiter, usage, dispatch, budgets, cache };
  return {
    config,
    catalog,
    chat,
    models: { catalog, auth, anthropicModels: new AnthropicModels(config.models, catalog.createdAt) },
    mcp: { ...chat, logger, origins: new OriginPolicy(config.mcpAllowedOrigins) },
    messages: new MessagesFront(catalog),
    engineSignals,
    engines,
    queue,
    cache,
  };
}

function newEngineSignals(config: Config, { health, inFlight, logger }: ServingBase): Pick<ServingSet, 'engineSignals' | 'engines' | 'queue'> {
  if (!config.models.some((model) => model.target.kind === 'upstreams' && model.target.engineAware === true)) return { engineSignals: null, engines: null, queue: null };
  const engineSignals = new EngineSignals(config.models, config.engineSignals, logger);
  const engines = new EngineChoice(health, inFlight, engineSignals, config.engineSignals.affinityEntries);
  const queue = new AdmissionQueue(config.queue, config.priority, engines);
  engineSignals.onPolled = () => queue.capacityFreed();
  return { engineSignals, engines, queue };
}

/** The poller, the choice and the queue depend on these sections (the queue's are `limits.queue` and `limits.priority`). */
function sameEngineSignalSettings(a: Config, b: Config): boolean {
  return JSON.stringify(a.engineSignals) === JSON.stringify(b.engineSignals) && JSON.stringify(a.models) === JSON.stringify(b.models)
    && JSON.stringify(a.queue) === JSON.stringify(b.queue) && JSON.stringify(a.priority) === JSON.stringify(b.priority);
}

// With Redis the fleet shares one cache, maxBytes per account; else each process keeps its own.
function newCache(config: Config, store: StoreWithEvents): ResponseCache | null {
  if (config.cache.maxBytes === 0) return null;
  return new ResponseCache(config.cache, config.models, store.redis === null ? undefined : new RedisReplyStore(store.redis, config.cache.maxBytes));
}

/** The cache depends on its own section and on the models' cache settings. */
function sameCacheSettings(a: Config, b: Config): boolean {
  return JSON.stringify(a.cache) === JSON.stringify(b.cache) && JSON.stringify(a.models) === JSON.stringify(b.models);
}
