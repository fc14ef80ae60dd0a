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

/** An alias such as `auto`: a routing policy over other models. */
export interface RouteTarget {
  readonly kind: 'route';
  readonly policy: 'first';
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

export interface RateLimits {
  readonly rpm: number;
  readonly tpm: number;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  readonly configFile: string | null;
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  /** Deadline for a body that arrives in pieces. */
  readonly bodyTimeoutMs: number;
  readonly shutdownGraceMs: number;
  /** Default per-key limits; a key may carry its own. */
  readonly limits: RateLimits;
  readonly engine: { readonly threads: number; readonly maxQueue: number };
  readonly authCacheTtlMs: number;
  readonly upstream: UpstreamTimeouts;
  readonly models: readonly ModelConfig[];
}
