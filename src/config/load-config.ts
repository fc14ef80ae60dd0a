// Reads settings from the environment and the optional config file, validates them once and
// returns a frozen Config. The only module that reads process.env.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { configFileProblem } from './config-file-problem.ts';
import { ConfigError } from './config-error.ts';
import { parseRedisUrl, redactRedisUrl } from '../store/redis-url.ts';
import type { BudgetSetting, BudgetsConfig, Config, LimitsConfig, LogLevel, ModelConfig, PriorityConfig, ModelSupport, ModelTarget, RedisConfig, UpstreamApi, UpstreamConfig, UpstreamTimeouts } from './config-types.ts';
import { CONFIG_FILE_SCHEMA } from './config-schema.ts';
import type { BudgetFile, ConfigFile, ModelFile, UpstreamFile } from './config-file.ts';
import { DEFAULT_BUDGET_CURRENCY, DEFAULT_DASHBOARD, DEFAULT_ENGINE_MAX_QUEUE, DEFAULT_ENGINE_SATURATION, DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE, DEFAULT_ENGINE_SIGNALS, DEFAULT_ENGINE_TASK_DEADLINE_MS, DEFAULT_LIMITS, DEFAULT_MODELS, DEFAULT_PRIORITY, DEFAULT_QUEUE, DEFAULT_REDIS, DEFAULT_RESILIENCE, DEFAULT_SERVER, DEFAULT_UPSTREAM_TIMEOUTS, MODEL_DEFAULTS, MODEL_FILE_DEFAULTS } from './default-config.ts';
import { dashboardConfig } from './dashboard-config.ts';
import { quickStartModels } from './quick-start.ts';
import { tlsFrom } from './tls-config.ts';
import { checkUpstreamBaseUrl } from './upstream-base-url.ts';
import { metricsFrom } from './metrics-config.ts';
import { responsesFrom } from './responses-config.ts';
import { cacheFrom, modelCacheFrom } from './cache-config.ts';
import { tracingFrom } from './tracing-config.ts';
import { toMicros } from '../budget/price.ts';

export { ConfigError };

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const validateFile = new Ajv({ allErrors: false, strict: true }).compile<ConfigFile>(CONFIG_FILE_SCHEMA);

export type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env, overrides: ConfigFile | null = null): Config {
  const port = parsePort(env.PORT);
  const host = env.HOST?.trim() || '127.0.0.1';
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const dataDir = dataDirFrom(env);
  const configFile = env.MUNJA_CONFIG?.trim() ? resolve(env.MUNJA_CONFIG.trim()) : null;
  const file = overrides ?? (configFile ? readConfigFile(configFile) : {});
  const quickStart = quickStartModels(env);
  if (quickStart !== null && file.models !== undefined) {
    throw new ConfigError('MUNJA_UPSTREAM_URL: set it or list models in MUNJA_CONFIG, not both');
  }
  const models = quickStart ?? modelFiles(file);
  const redis = redisFrom(env, file.redis);
  const workers = parseWorkers(env.MUNJA_WORKERS, redis !== null);
  const keptDefaultModels = quickStart === null ? keptDefaults(file) : [];
  const config = buildConfig({ ...file, models }, { workers, host, port, logLevel, dataDir, redis, configFile, keptDefaultModels });
  // The dashboard throttles by the same client address as the rest of the server.
  const dashboard = { ...dashboardConfig(file.server?.dashboard, env), trustProxy: config.trustProxy };
  const responses = responsesFrom(file.responses, env);
  const cache = cacheFrom(file.cache, env);
  return deepFreeze({ ...config, tls: tlsFrom(env), metrics: metricsFrom(env), tracing: tracingFrom(env), dashboard, responses, cache });
}

/**
 * The file's models merged by id over the default ones: an entry replaces the default of its id,
 * so pointing one model at a server keeps the others. `"defaultModels": false` serves the file's alone.
 */
function modelFiles(file: ConfigFile): Record<string, ModelFile> {
  const defaults = DEFAULT_MODELS as unknown as Record<string, ModelFile>;
  if (file.models === undefined) return defaults;
  return file.defaultModels === false ? file.models : { ...defaults, ...file.models };
}

/** The default ids served beside the models a file lists (none when it lists none, or turns them off). */
function keptDefaults(file: ConfigFile): string[] {
  if (file.models === undefined || file.defaultModels === false) return [];
  return Object.keys(DEFAULT_MODELS).filter((id) => !Object.hasOwn(file.models!, id));
}

/** Several workers share nothing in memory, so they need Redis; with it the default is one per core. */
function parseWorkers(raw: string | undefined, haveRedis: boolean): number {
  if (raw === undefined || raw.trim() === '') return haveRedis ? availableParallelism() : 1;
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) throw new ConfigError(`MUNJA_WORKERS must be an integer from 1 to 256, got "${raw}"`);
  if (workers > 1 && !haveRedis) {
    throw new ConfigError('MUNJA_WORKERS > 1 needs REDIS_URL: workers share keys, limits and usage only through Redis');
  }
  return workers;
}

/** `data/` in Munja's own directory: the same for the server and the CLI, wherever they are run from. */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../data', import.meta.url));

/** The data dir alone, for the CLI, whose key commands must not depend on the rest of the config. */
export function dataDirFrom(env: Env): string {
  return resolve(env.MUNJA_DATA?.trim() || DEFAULT_DATA_DIR);
}

/** The public model ids the server would serve with these settings, for the CLI's --models. */
export function modelIdsFrom(env: Env): string[] {
  const quickStart = quickStartModels(env);
  if (quickStart !== null) return Object.keys(quickStart);
  const configFile = env.MUNJA_CONFIG?.trim();
  return Object.keys(modelFiles(configFile ? readConfigFile(resolve(configFile)) : {}));
}

/** The key cap alone, for `munja keys create` (the rest of the config must not stop the CLI). */
export function maxKeysPerAccountFrom(env: Env): number {
  const path = env.MUNJA_CONFIG?.trim();
  const file = path ? readConfigFile(resolve(path)) : {};
  return file.server?.dashboard?.maxKeysPerAccount ?? DEFAULT_DASHBOARD.maxKeysPerAccount;
}

/** `budgets.currency` alone, for `munja usage` (the rest of the config must not stop the CLI). */
export function currencyFrom(env: Env): string {
  const path = env.MUNJA_CONFIG?.trim();
  const file = path ? readConfigFile(resolve(path)) : {};
  return file.budgets?.currency ?? DEFAULT_BUDGET_CURRENCY;
}

/**
 * REDIS_URL alone, for the CLI too (it must reach the same store as the server); null means the
 * embedded store. `tuning` is the config file's `redis` section.
 */
export function redisFrom(env: Env, tuning: ConfigFile['redis'] = {}): RedisConfig | null {
  const url = env.REDIS_URL?.trim();
  if (!url) return null;
  try {
    parseRedisUrl(url);
  } catch (error) {
    throw new ConfigError(`REDIS_URL ${(error as Error).message}, got "${redactRedisUrl(url)}"`);
  }
  return {
    url,
    commandTimeoutMs: tuning.commandTimeoutMs ?? DEFAULT_REDIS.commandTimeoutMs,
    connectTimeoutMs: tuning.connectTimeoutMs ?? DEFAULT_REDIS.connectTimeoutMs,
  };
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${raw}"`);
  return port;
}

function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`MUNJA_CONFIG: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MUNJA_CONFIG: ${path} is not valid JSON (${(error as Error).message})`);
  }
  return validateConfigFile(parsed, 'MUNJA_CONFIG');
}

export function validateConfigFile(value: unknown, source: string): ConfigFile {
  if (validateFile(value)) return value;
  throw new ConfigError(`${source}: ${configFileProblem(validateFile.errors?.[0])}`);
}

interface Basics {
  workers: number; host: string; port: number; logLevel: LogLevel; dataDir: string; redis: RedisConfig | null; configFile: string | null;
  keptDefaultModels: readonly string[];
}

function buildConfig(file: ConfigFile, basics: Basics): Omit<Config, 'dashboard' | 'responses' | 'cache' | 'tls' | 'metrics' | 'tracing'> {
  const models = buildModels(file.models ?? {});
  const maxBodyBytes = file.server?.maxBodyBytes ?? DEFAULT_SERVER.maxBodyBytes;
  const maxBufferedBodyBytes = file.server?.maxBufferedBodyBytes ?? DEFAULT_SERVER.maxBufferedBodyBytes;
  if (maxBufferedBodyBytes < maxBodyBytes) {
    throw new ConfigError('MUNJA_CONFIG: server.maxBufferedBodyBytes is below server.maxBodyBytes: a body of the largest size could never be read');
  }
  return {
    ...basics,
    maxBodyBytes,
    maxJsonDepth: file.server?.maxJsonDepth ?? DEFAULT_SERVER.maxJsonDepth,
    bodyTimeoutMs: file.server?.bodyTimeoutMs ?? DEFAULT_SERVER.bodyTimeoutMs,
    streamWriteStallMs: file.server?.streamWriteStallMs ?? DEFAULT_SERVER.streamWriteStallMs,
    shutdownGraceMs: file.server?.shutdownGraceMs ?? DEFAULT_SERVER.shutdownGraceMs,
    drainDelayMs: file.server?.drainDelayMs ?? DEFAULT_SERVER.drainDelayMs,
    maxInFlight: file.server?.maxInFlight ?? DEFAULT_SERVER.maxInFlight,
    maxInFlightPerKey: file.server?.maxInFlightPerKey ?? DEFAULT_SERVER.maxInFlightPerKey,
    maxBufferedBodyBytes,
    maxRequestsPerAddress: file.server?.maxRequestsPerAddress ?? DEFAULT_SERVER.maxRequestsPerAddress,
    trustProxy: trustProxyFrom(file.server),
    watchConfig: file.server?.watchConfig ?? DEFAULT_SERVER.watchConfig,
    authCacheTtlMs: file.server?.authCacheTtlMs ?? (basics.redis ? DEFAULT_REDIS.authCacheTtlMs : DEFAULT_SERVER.authCacheTtlMs),
    mcpAllowedOrigins: Object.freeze([...(file.server?.mcpAllowedOrigins ?? DEFAULT_SERVER.mcpAllowedOrigins)]),
    upstream: upstreamTimeouts(file.upstream),
    resilience: {
      retry: { ...DEFAULT_RESILIENCE.retry, ...file.upstream?.retry },
      breaker: { ...DEFAULT_RESILIENCE.breaker, ...file.upstream?.breaker },
      rateLimitBackoffMaxMs: file.upstream?.rateLimitBackoffMaxMs ?? DEFAULT_RESILIENCE.rateLimitBackoffMaxMs,
    },
    engineSignals: { ...DEFAULT_ENGINE_SIGNALS, ...file.upstream?.engineSignals },
    limits: limitsFrom(file.limits),
    priority: priorityFrom(file.limits?.priority),
    queue: { ...DEFAULT_QUEUE, ...file.limits?.queue },
    budgets: budgetsFrom(file.budgets),
    engine: {
      threads: file.engine?.threads ?? Math.min(availableParallelism(), 4),
      maxQueue: file.engine?.maxQueue ?? DEFAULT_ENGINE_MAX_QUEUE,
      taskDeadlineMs: file.engine?.taskDeadlineMs ?? DEFAULT_ENGINE_TASK_DEADLINE_MS,
      schemaMsPerMinute: file.engine?.schemaMsPerMinute ?? DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE,
    },
    models,
  };
}

function limitsFrom(file: ConfigFile['limits'] = {}): LimitsConfig {
  const { priority: _priority, queue: _queue, ...rates } = file;
  const limits = { ...DEFAULT_LIMITS, ...rates };
  return file.account === undefined ? { ...limits, account: { rpm: limits.rpm, tpm: limits.tpm } } : limits;
}

function priorityFrom(file: NonNullable<ConfigFile['limits']>['priority']): PriorityConfig {
  if (file === undefined || typeof file === 'string') return { default: file ?? DEFAULT_PRIORITY, keys: new Map(), accounts: new Map() };
  return { default: file.default ?? DEFAULT_PRIORITY, keys: new Map(Object.entries(file.keys ?? {})), accounts: new Map(Object.entries(file.accounts ?? {})) };
}

function budgetsFrom(file: ConfigFile['budgets'] = {}): BudgetsConfig {
  const setting = (budget: BudgetFile | undefined): BudgetSetting | null => budget == null ? null : { limit: toMicros(budget.amount), period: budget.period };
  const each = (named: Record<string, BudgetFile> = {}) => new Map(Object.entries(named).map(([id, budget]) => [id, setting(budget)]));
  return {
    currency: file.currency ?? DEFAULT_BUDGET_CURRENCY,
    key: setting(file.key),
    account: setting(file.account),
    keys: each(file.keys),
    accounts: each(file.accounts),
  };
}

/** `server.trustProxy`; the older `server.dashboard.trustProxy` still turns it on for the whole server. */
function trustProxyFrom(server: ConfigFile['server']): boolean {
  return server?.trustProxy ?? server?.dashboard?.trustProxy ?? DEFAULT_SERVER.trustProxy;
}

function upstreamTimeouts(file: ConfigFile['upstream']): UpstreamTimeouts {
  return {
    connectTimeoutMs: file?.connectTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.connectTimeoutMs,
    firstByteTimeoutMs: file?.firstByteTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.firstByteTimeoutMs,
    responseTimeoutMs: file?.responseTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.responseTimeoutMs,
    idleTimeoutMs: file?.idleTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUTS.idleTimeoutMs,
    maxEventBytes: file?.maxEventBytes ?? DEFAULT_UPSTREAM_TIMEOUTS.maxEventBytes,
  };
}

function buildModels(files: Record<string, ModelFile>): ModelConfig[] {
  const ids = new Set(Object.keys(files));
  const models = Object.entries(files).map(([id, file]) => buildModel(id, file, ids));
  for (const model of models) {
    if (model.target.kind === 'route') checkRoute(model, files);
  }
  return models;
}

function buildModel(id: string, file: ModelFile, ids: Set<string>): ModelConfig {
  const where = `models.${id}`;
  const contextTokens = file.contextTokens ?? MODEL_DEFAULTS.contextTokens;
  const maxOutputTokens = file.maxOutputTokens ?? Math.min(MODEL_DEFAULTS.maxOutputTokens, contextTokens);
  const defaultMaxTokens = file.defaultMaxTokens ?? Math.min(MODEL_DEFAULTS.defaultMaxTokens, maxOutputTokens);
  if (maxOutputTokens > contextTokens) throw new ConfigError(`MUNJA_CONFIG: ${where}.maxOutputTokens exceeds contextTokens`);
  if (defaultMaxTokens > maxOutputTokens) throw new ConfigError(`MUNJA_CONFIG: ${where}.defaultMaxTokens exceeds maxOutputTokens`);
  return {
    id,
    ownedBy: file.ownedBy ?? MODEL_DEFAULTS.ownedBy,
    description: file.description ?? '',
    contextTokens,
    maxOutputTokens,
    defaultMaxTokens,
    supports: buildSupport(where, file),
    target: buildTarget(where, id, file, ids),
    price: file.price === undefined ? null : { input: file.price.input, output: file.price.output, cachedInput: file.price.cachedInput ?? file.price.input },
    cache: modelCacheFrom(file.cache),
  };
}

function buildSupport(where: string, file: ModelFile): ModelSupport {
  const supports = file.supports ?? {};
  if (file.route !== undefined && file.supports !== undefined) throw new ConfigError(`MUNJA_CONFIG: ${where}.supports applies to the models a route serves, not to the route`);
  const fallback = MODEL_FILE_DEFAULTS.supports;
  return { tools: supports.tools ?? fallback.tools, responseFormat: supports.responseFormat ?? fallback.responseFormat, contentParts: supports.contentParts ?? fallback.contentParts };
}

function buildTarget(where: string, id: string, file: ModelFile, ids: Set<string>): ModelTarget {
  const kinds = (['local', 'upstreams', 'route'] as const).filter((kind) => file[kind] !== undefined);
  if (kinds.length !== 1) throw new ConfigError(`MUNJA_CONFIG: ${where} needs exactly one of "local", "upstreams" or "route"`);
  if (file.routePolicy !== undefined && file.route === undefined) throw new ConfigError(`MUNJA_CONFIG: ${where}.routePolicy applies only to a route`);
  if (file.local) {
    return {
      kind: 'local',
      language: file.local.language ?? MODEL_FILE_DEFAULTS.local.language,
      latency: { timeToFirstTokenMs: file.local.timeToFirstTokenMs ?? MODEL_FILE_DEFAULTS.local.timeToFirstTokenMs, tokensPerSecond: file.local.tokensPerSecond ?? MODEL_FILE_DEFAULTS.local.tokensPerSecond },
    };
  }
  if (file.upstreams) {
    const upstreams = file.upstreams.map((upstream, index) => buildUpstream(id, upstream, `${where}.upstreams.${index}`));
    const byLoad = upstreams.some((upstream) => upstream.engine !== undefined || upstream.maxConcurrent !== undefined);
    return byLoad ? { kind: 'upstreams', upstreams, engineAware: true } : { kind: 'upstreams', upstreams };
  }
  const route = file.route ?? [];
  for (const target of route) {
    if (!ids.has(target)) throw new ConfigError(`MUNJA_CONFIG: ${where}.route names unknown model "${target}"`);
    if (target === id) throw new ConfigError(`MUNJA_CONFIG: ${where}.route names itself`);
  }
  return { kind: 'route', policy: file.routePolicy ?? MODEL_FILE_DEFAULTS.routePolicy, models: route };
}


function buildUpstream(id: string, file: UpstreamFile, where: string): UpstreamConfig {
  checkUpstreamBaseUrl(file.baseUrl, `MUNJA_CONFIG: ${where}.baseUrl`);
  const baseUrl = file.baseUrl.replace(/\/+$/, '');
  const url = new URL(baseUrl);
  const api: readonly UpstreamApi[] = file.api ?? MODEL_FILE_DEFAULTS.upstreamApi;
  // A chat request needs an upstream that speaks chat, and every request of another API falls back
  // to chat on an upstream that does not speak it: until a model may lack chat, every upstream has it.
  if (!api.includes('chat')) throw new ConfigError(`MUNJA_CONFIG: ${where}.api must include "chat" (every upstream also serves chat completions), got ${JSON.stringify(api)}`);
  return {
    baseUrl,
    origin: url.origin,
    chatPath: `${url.pathname}/chat/completions`,
    responsesPath: `${url.pathname}/responses`,
    messagesPath: `${url.pathname}/messages`,
    api,
    model: file.model ?? id,
    apiKey: file.apiKey ?? null,
    weight: file.weight ?? MODEL_DEFAULTS.upstreamWeight,
    maxConnections: file.maxConnections ?? MODEL_DEFAULTS.upstreamMaxConnections,
    ...(file.maxConcurrent === undefined ? {} : { maxConcurrent: file.maxConcurrent }),
    ...engineOf(file, where),
  };
}

function engineOf(file: UpstreamFile, where: string): Pick<UpstreamConfig, 'engine' | 'saturation'> {
  if (file.engine === undefined) {
    if (file.saturation !== undefined) throw new ConfigError(`MUNJA_CONFIG: ${where}.saturation needs "engine" (the engine whose load it bounds)`);
    return {};
  }
  return { engine: file.engine, saturation: { ...DEFAULT_ENGINE_SATURATION, ...file.saturation } };
}

function checkRoute(model: ModelConfig, files: Record<string, ModelFile>): void {
  if (model.target.kind !== 'route') return;
  for (const target of model.target.models) {
    if (files[target]?.route) throw new ConfigError(`MUNJA_CONFIG: models.${model.id}.route: "${target}" is itself a route; routes go one level deep`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
