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

export interface UpstreamConfig {
  /** OpenAI-compatible base URL ending in /v1. */
  readonly baseUrl: string;
  /** Derived from baseUrl: the pool key and the request path. */
  readonly origin: string;
  readonly chatPath: string;
  /** The model name the upstream expects. */
  readonly model: string;
  readonly apiKey: string | null;
  readonly weight: number;
  readonly maxConnections: number;
}

export interface UpstreamTarget {
  readonly kind: 'upstreams';
  readonly upstreams: readonly UpstreamConfig[];
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
  readonly target: ModelTarget;
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
  /** Gateway instances sharing one Redis; the local share of a limit is limit / expectedInstances. */
  readonly expectedInstances: number;
}

/** Set when REDIS_URL is: the shared store (and limiter) live in Redis instead of `munja.db`. */
export interface RedisConfig {
  /** redis://, rediss://, redis+sentinel://, redis+cluster:// (see store/redis-url.ts). */
  readonly url: string;
  /** Deadline of every Redis command; Redis trouble must never hang a request. */
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

/** The web dashboard at /dashboard (the file's `server.dashboard`). */
export interface DashboardConfig {
  readonly enabled: boolean;
  /** Anyone who can reach the dashboard may create an account. */
  readonly signUp: boolean;
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
  readonly dataDir: string;
  readonly redis: RedisConfig | null;
  readonly logLevel: LogLevel;
  readonly configFile: string | null;
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
  /** Default per-key limits (a key may carry its own) and the limiter's settings. */
  readonly limits: LimitsConfig;
  readonly engine: { readonly threads: number; readonly maxQueue: number };
  readonly authCacheTtlMs: number;
  /** Browser origins allowed to call /mcp; a request with any other Origin header is refused. */
  readonly mcpAllowedOrigins: readonly string[];
  readonly dashboard: DashboardConfig;
  readonly upstream: UpstreamTimeouts;
  readonly resilience: ResilienceConfig;
  readonly models: readonly ModelConfig[];
}
