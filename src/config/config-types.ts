// The frozen, fully-resolved configuration the rest of the service reads. Built once at start.

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface LatencyProfile {
  /** Delay before the first token. */
  readonly timeToFirstTokenMs: number;
  /** Output speed; 0 means no pacing (everything at once). */
  readonly tokensPerSecond: number;
}

export interface LocalTarget {
  readonly kind: 'local';
  readonly language: 'en' | 'hr';
  readonly latency: LatencyProfile;
}

/** An API an upstream speaks: chat completions, OpenAI's Responses, Anthropic's Messages. */
export type UpstreamApi = 'chat' | 'responses' | 'messages';

export interface UpstreamConfig {
  /** OpenAI-compatible base URL: what comes before /chat/completions (e.g. …/v1, …/v1beta/openai). */
  readonly baseUrl: string;
  /** Derived from baseUrl: the pool key and the request paths. */
  readonly origin: string;
  readonly chatPath: string;
  readonly responsesPath: string;
  readonly messagesPath: string;
  /**
   * The APIs it speaks ("chat" always): a request of another listed API is relayed to it as the
   * client sent it, rather than translated into a chat completion.
   */
  readonly api: readonly UpstreamApi[];
  /** The model name the upstream expects. */
  readonly model: string;
  readonly apiKey: string | null;
  readonly weight: number;
  readonly maxConnections: number;
  /** The inference engine behind it, whose load signals Munja polls (absent: none declared). */
  readonly engine?: EngineKind;
  /** When its engine counts as saturated (set with `engine`). */
  readonly saturation?: EngineSaturation;
  /** The most requests Munja sends it at once; past it the upstream counts as saturated (absent: no cap). */
  readonly maxConcurrent?: number;
}

/**
 * Engines whose load Munja reads: vLLM, SGLang and llama.cpp publish it; `openai` (a hosted API) does
 * not; `auto`: whichever of the three its metrics page (or llama.cpp's slots) shows at start, else none.
 */
export type EngineKind = 'vllm' | 'sglang' | 'llamacpp' | 'openai' | 'auto';

/** The engines whose load is polled. */
export type PolledEngine = Exclude<EngineKind, 'openai' | 'auto'>;

/** An engine is saturated at either threshold: requests waiting in its queue, or the share of its KV cache in use (0–1). */
export interface EngineSaturation {
  readonly queueDepth: number;
  readonly kvCacheUsage: number;
}

/** Polling of the engines' load signals (the file's `upstream.engineSignals`). */
export interface EngineSignalsConfig {
  readonly pollMs: number;
  /** A poll that has not answered by then is a missed poll. */
  readonly timeoutMs: number;
  /** Conversations whose upstream is remembered for prefix affinity, at most. */
  readonly affinityEntries: number;
}

export interface UpstreamTarget {
  readonly kind: 'upstreams';
  readonly upstreams: readonly UpstreamConfig[];
  /**
   * Some upstream declares an engine or a `maxConcurrent`: the upstream is chosen by saturation and
   * prefix affinity, not by weight, and requests wait in the admission queue while every one is saturated.
   */
  readonly engineAware?: boolean;
}

/**
 * An alias such as `auto`: a routing policy over other models. `least-outstanding` serves each request
 * from the covered model whose healthiest upstream (or local engine) has the fewest requests in flight
 * in this process, ties going to the earlier model; `first` always takes the first one that can serve.
 */
export type RoutePolicy = 'least-outstanding' | 'first';

export interface RouteTarget {
  readonly kind: 'route';
  readonly policy: RoutePolicy;
  readonly models: readonly string[];
}

export type ModelTarget = LocalTarget | UpstreamTarget | RouteTarget;

/**
 * What the model's server honours beyond plain chat (the file's `supports`): the gateway refuses the
 * rest with `unsupported_parameter` instead of passing it on to fail there.
 */
export interface ModelSupport {
  /** `tools`, `tool_choice`, `parallel_tool_calls` and tool turns in `messages`. Default true. */
  readonly tools: boolean;
  /** `response_format` of type `json_object` or `json_schema`. Default true. */
  readonly responseFormat: boolean;
  /** Message content as a list of text and image parts (vision servers). Default false: content is a string. */
  readonly contentParts: boolean;
}

export interface ModelConfig {
  readonly id: string;
  readonly ownedBy: string;
  readonly description: string;
  /** Prompt + completion tokens the model accepts. */
  readonly contextTokens: number;
  /** Upper bound for max_tokens. */
  readonly maxOutputTokens: number;
  /** Completion tokens reserved against the token limit when a request gives no max_tokens. */
  readonly defaultMaxTokens: number;
  /** For a route, the defaults: each request is checked against the model that serves it. */
  readonly supports: ModelSupport;
  readonly target: ModelTarget;
  /** Per million tokens, in `budgets.currency`; absent or null: the model costs nothing. */
  readonly price?: ModelPrice | null;
  /** The response cache for this model; null: only a request's `x-munja-cache: on` turns it on. */
  readonly cache?: ModelCacheConfig | null;
}

export interface ModelCacheConfig {
  readonly enabled: boolean;
  readonly ttlSeconds: number;
  /** Cache only requests the model answers the same way each time (`temperature: 0`, or a `seed`). */
  readonly deterministicOnly: boolean;
}

/** The response cache's bounds (the file's `cache`). */
export interface CacheConfig {
  /** Bytes the in-memory cache holds in this process, or each account holds in Redis; 0 turns the cache off. */
  readonly maxBytes: number;
  /** The largest reply stored; a larger one is served but not kept. */
  readonly maxEntryBytes: number;
  /** How long an identical request waits for the first one's answer before calling on its own. */
  readonly singleFlightWaitMs: number;
  /** In memory, the share of maxBytes one account's replies may hold (with Redis, maxBytes is each account's cap). */
  readonly maxAccountShare: number;
}

export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Prompt tokens served from the upstream's cache; the input price when not configured. */
  readonly cachedInput: number;
}

export type BudgetPeriodName = 'day' | 'month' | 'total';

/** At most `limit` micro-units of the currency spent per period. */
export interface BudgetSetting {
  readonly limit: number;
  readonly period: BudgetPeriodName;
}

/** Spend budgets; all null and empty: budgets are off (the request path does not look). */
export interface BudgetsConfig {
  /** The currency every price and budget is in, named once (ISO 4217, e.g. USD). */
  readonly currency: string;
  /** Every key's budget unless `keys` names it; null: none. */
  readonly key: BudgetSetting | null;
  /** Every account's budget, shared by its keys, unless `accounts` names it; null: none. */
  readonly account: BudgetSetting | null;
  /** Per key id: its own budget (null: none, whatever `key` says). */
  readonly keys: ReadonlyMap<string, BudgetSetting | null>;
  readonly accounts: ReadonlyMap<string, BudgetSetting | null>;
}

export interface UpstreamTimeouts {
  /** TCP (and TLS) connection set-up. */
  readonly connectTimeoutMs: number;
  /** Request sent → response headers, for streams (the model's time to first token). */
  readonly firstByteTimeoutMs: number;
  /** Request sent → response headers, without streaming (the whole generation). */
  readonly responseTimeoutMs: number;
  /** Silence allowed between two body chunks. */
  readonly idleTimeoutMs: number;
  /** The largest event a stream may carry: past it the stream ends in an error and the upstream request is aborted. */
  readonly maxEventBytes: number;
}

/** Retries, failover and circuit breaking for upstreams (the file's `upstream.retry` / `upstream.breaker`). */
export interface ResilienceConfig {
  readonly retry: {
    /** Retries allowed per 100 first attempts, on top of the reserve. */
    readonly budgetPercent: number;
    /** Retries available before any traffic earned them (and the budget's ceiling). */
    readonly reserve: number;
    /** The retry waits a random time between half of this and all of it. */
    readonly backoffMs: number;
  };
  readonly breaker: {
    /** Consecutive failures that eject an upstream. */
    readonly consecutiveFailures: number;
    /** How long an ejected upstream is left alone before one trial request probes it. */
    readonly ejectMs: number;
  };
  /** An upstream that answered 429 is passed over for its Retry-After, at most this long. */
  readonly rateLimitBackoffMaxMs: number;
}

export interface RateLimits {
  readonly rpm: number;
  readonly tpm: number;
}

/** A scheduling band: higher bands leave the admission queue first. */
export type PriorityBand = 'high' | 'normal' | 'low';

/** `limits.priority`: every key's band, unless the key or its account carries one, or is named here. */
export interface PriorityConfig {
  readonly default: PriorityBand;
  readonly keys: ReadonlyMap<string, PriorityBand>;
  readonly accounts: ReadonlyMap<string, PriorityBand>;
}

/** `limits.queue`: requests waiting for a saturated model, per process. */
export interface QueueConfig {
  /** Requests waiting at once in this process, all models together; past it a request is refused. */
  readonly maxWaiting: number;
  /** The longest a request waits; then it is refused. */
  readonly timeoutMs: number;
}

/** The config file's `limits`: per-key defaults (rpm, tpm) and the limiter's settings. */
export interface LimitsConfig extends RateLimits {
  /** Requests one key may have in flight at once. */
  readonly concurrency: number;
  /** Buckets shared by all keys of one account; null: accounts are not limited as a whole. */
  readonly account: RateLimits | null;
  /** With Redis: while it cannot answer, each instance enforces its local share, or answers 503. */
  readonly failMode: 'open-local' | 'closed';
  /** Key or account ids that fail closed whatever failMode says. */
  readonly failClosed: readonly string[];
  /** Overrides the live fleet count (heartbeats in Redis) that the local share divides each limit by; null: the live count. */
  readonly expectedInstances: number | null;
}

/** Set when REDIS_URL is: the shared store (and limiter) live in Redis instead of `munja.db`. */
export interface RedisConfig {
  /** redis://, rediss://, redis+sentinel://, redis+cluster:// (see store/redis-url.ts). */
  readonly url: string;
  /**
   * The longest a request waits for Redis (a key lookup, a limiter decision); past it, 503. The
   * limiter also counts Redis unreachable when nothing at all has answered for this long.
   */
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
}

/** MUNJA_TLS_CERT / MUNJA_TLS_KEY: the port serves HTTPS only (absolute paths; re-read on SIGHUP). */
export interface TlsConfig {
  readonly certFile: string;
  readonly keyFile: string;
  readonly passphrase: string | null;
}

/** MUNJA_METRICS_PORT / MUNJA_METRICS_HOST: where GET /metrics is served (its own listener). */
export interface MetricsConfig {
  readonly host: string;
  /** 0: a free port. */
  readonly port: number;
}

/** How traces are sampled: the OTEL_TRACES_SAMPLER names. `parentbased_*` follow a client's traceparent. */
export type TraceSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** OpenTelemetry traces from the standard OTEL_* variables; exported over OTLP/HTTP (protobuf). */
export interface TracingConfig {
  /** The OTLP/HTTP traces endpoint, `/v1/traces` included. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly compression: 'gzip' | 'none';
  readonly sampler: TraceSampler;
  /** For the ratio samplers: the share of traces kept (0–1). */
  readonly samplerRatio: number;
  /** The resource: service.name and OTEL_RESOURCE_ATTRIBUTES. */
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** The batch span processor (OTEL_BSP_*). */
  readonly batch: { readonly scheduleDelayMs: number; readonly maxQueueSize: number; readonly maxExportBatchSize: number; readonly exportTimeoutMs: number };
  /** Record prompts and completions on spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true); off by default. */
  readonly captureContent: boolean;
}

/** Stored Responses (the file's `responses`): kept for `previous_response_id` and `GET /v1/responses/{id}`. */
export interface ResponsesConfig {
  /** How long a stored response is kept. */
  readonly ttlSeconds: number;
  /** The UTF-8 bytes of stored response bodies one account may hold at once; past it a save is refused. */
  readonly maxStoredBytesPerAccount: number;
}

export type SignUpMode = 'open' | 'email' | 'invite' | 'closed';

/** The web dashboard at /dashboard (the file's `server.dashboard`). */
export interface DashboardConfig {
  readonly enabled: boolean;
  /**
   * Who may create an account: anyone (`open`), anyone who follows the link mailed to the address
   * (`email`), holders of an admin's invite (`invite`), or nobody (`closed`: the CLI makes accounts).
   */
  readonly signUp: SignUpMode;
  /** Sign-ups allowed per client address (IPv6: per /64) within one window. */
  readonly signUpThrottle: { readonly addressSignUps: number; readonly windowMs: number };
  /** Keys an account may have that are not revoked (dashboard and CLI). */
  readonly maxKeysPerAccount: number;
  /** The dashboard's public origin, for links in mail (never taken from a request's Host header). */
  readonly publicUrl: string | null;
  /** Outgoing mail for `email` sign-up: MUNJA_SMTP_URL and the From address. */
  readonly mail: { readonly smtpUrl: string; readonly from: string } | null;
  /** How long a verification link and an invite stay valid. */
  readonly verificationTtlMs: number;
  readonly inviteTtlMs: number;
  /** A `__Host-` cookie marked Secure; false (MUNJA_INSECURE_COOKIES=1) for plain-HTTP development. */
  readonly secureCookies: boolean;
  /** A session ends this long after sign-in, whatever its use. */
  readonly sessionTtlMs: number;
  /** …and after this long unused. */
  readonly sessionIdleMs: number;
  /** Password hashes computed at once (each takes ~128 MiB and a libuv thread for ~0.5 s). */
  readonly hashConcurrency: number;
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy that sets it). */
  readonly trustProxy: boolean;
  /** Failed sign-ins allowed per account and per client address within one window. */
  readonly signInThrottle: { readonly accountFailures: number; readonly addressFailures: number; readonly windowMs: number };
}

export interface Config {
  /** Worker processes serving the port (node:cluster); 1 means no primary/worker split. */
  readonly workers: number;
  readonly host: string;
  readonly port: number;
  /** null: plain HTTP (e.g. behind a TLS-terminating proxy). */
  readonly tls: TlsConfig | null;
  /** null: no metrics listener (MUNJA_METRICS_PORT=off). */
  readonly metrics: MetricsConfig | null;
  /** null (the default): no traces, and no tracing work per request. */
  readonly tracing: TracingConfig | null;
  readonly dataDir: string;
  readonly redis: RedisConfig | null;
  readonly logLevel: LogLevel;
  readonly configFile: string | null;
  /** Default model ids served beside the models the config file lists (`defaultModels`). */
  readonly keptDefaultModels: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  /** Deadline for a body that arrives in pieces. */
  readonly bodyTimeoutMs: number;
  /** A stream whose client reads nothing for this long is closed, and the work behind it stopped. */
  readonly streamWriteStallMs: number;
  /** After the listening socket closes, what is in flight has this long to finish. */
  readonly shutdownGraceMs: number;
  /** On SIGTERM or SIGINT: how long to go on accepting while load balancers notice /readyz is 503. */
  readonly drainDelayMs: number;
  /** Requests in flight in this process beyond which new ones get 503 `overloaded` (probes excepted). */
  readonly maxInFlight: number;
  /** Requests one key may have in flight in this process beyond which new ones get 503 `overloaded`. */
  readonly maxInFlightPerKey: number;
  /** Request body bytes this process holds at once while reading; past it a request gets 503 `overloaded`. */
  readonly maxBufferedBodyBytes: number;
  /** Requests one client address (an IPv6 /64) may have open in this process; past it 429 `too_many_open_requests`. */
  readonly maxRequestsPerAddress: number;
  /** Take the client address from the last X-Forwarded-For entry (only behind a proxy that sets it). */
  readonly trustProxy: boolean;
  /** Reload the config file when it changes (as on SIGHUP). */
  readonly watchConfig: boolean;
  /** Default per-key limits (a key may carry its own) and the limiter's settings. */
  readonly limits: LimitsConfig;
  /** The file's `limits.priority` and `limits.queue`: the admission queue's bands and bounds. */
  readonly priority: PriorityConfig;
  readonly queue: QueueConfig;
  readonly budgets: BudgetsConfig;
  /**
   * taskDeadlineMs: the longest one engine task may run on its thread before it is stopped;
   * schemaMsPerMinute: engine time per account per minute for compiling schemas it has not seen.
   */
  readonly engine: { readonly threads: number; readonly maxQueue: number; readonly taskDeadlineMs: number; readonly schemaMsPerMinute: number };
  readonly authCacheTtlMs: number;
  /** Browser origins allowed to call /mcp; a request with any other Origin header is refused. */
  readonly mcpAllowedOrigins: readonly string[];
  readonly dashboard: DashboardConfig;
  readonly responses: ResponsesConfig;
  readonly cache: CacheConfig;
  readonly upstream: UpstreamTimeouts;
  readonly resilience: ResilienceConfig;
  readonly engineSignals: EngineSignalsConfig;
  readonly models: readonly ModelConfig[];
}
