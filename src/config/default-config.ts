// What Munja serves with no config file: the five documented ids on the built-in local engine.
import type { LatencyProfile } from './config-types.ts';

export const DEFAULT_SERVER = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxJsonDepth: 32,
  bodyTimeoutMs: 30_000,
  // Below uWS's own ~30 s timeout for a response it cannot send, so that this one (logged) fires.
  streamWriteStallMs: 20_000,
  shutdownGraceMs: 15_000,
  drainDelayMs: 2_000,
  maxInFlight: 20_000,
  // Far above limits.concurrency (64): it binds only where the limiter does not (disabled, or Redis away).
  maxInFlightPerKey: 1_000,
  authCacheTtlMs: 1_000,
  mcpAllowedOrigins: [],
  // 32 bodies at the 4 MiB cap, or tens of thousands of ordinary (few-KiB) ones, held at once.
  maxBufferedBodyBytes: 128 * 1024 * 1024,
  // Twice limits.concurrency: a client within its key's limits never meets it, yet one address
  // cannot hold hundreds of requests (and their bodies) open.
  maxRequestsPerAddress: 128,
  trustProxy: false,
  watchConfig: false,
} as const;

// Two hashes at once leave libuv's other two threads (of 4) to DNS and file work.
export const DEFAULT_DASHBOARD = {
  enabled: true,
  secureCookies: true,
  sessionTtlMs: 24 * 3_600_000,
  sessionIdleMs: 2 * 3_600_000,
  hashConcurrency: 2,
  trustProxy: false,
  signInThrottle: { accountFailures: 5, addressFailures: 30, windowMs: 15 * 60_000 },
  // 'open' works on a fresh machine (no mail server needed); the account limits, the key cap and
  // 5 sign-ups per address (IPv6 /64) an hour bound what one person gains by signing up again.
  signUp: 'open',
  signUpThrottle: { addressSignUps: 5, windowMs: 3_600_000 },
  // Enough for a key per app and environment; past it, more keys would only multiply list sizes.
  maxKeysPerAccount: 20,
  publicUrl: null,
  mailFrom: null,
  verificationTtlMs: 24 * 3_600_000,
  inviteTtlMs: 7 * 24 * 3_600_000,
} as const;

// OpenAI keeps a stored response 30 days. 256 MiB an account is thousands of long conversations
// (a response with its input is a few KiB to a few hundred), yet bounds what one account can make
// the store hold.
export const DEFAULT_RESPONSES = {
  ttlSeconds: 30 * 86_400,
  maxStoredBytesPerAccount: 256 * 1024 * 1024,
} as const;

// A model's cached replies live ten minutes unless its config says otherwise. 256 MiB holds tens
// of thousands of typical replies; 8 MiB per reply keeps one long stream from evicting the rest.
export const DEFAULT_CACHE_TTL_SECONDS = 600;
export const DEFAULT_CACHE = {
  maxBytes: 256 * 1024 * 1024,
  maxEntryBytes: 8 * 1024 * 1024,
  singleFlightWaitMs: 30_000,
  maxAccountShare: 0.5,
} as const;

/**
 * The longest one local-engine task may run on its thread. The slowest legitimate task at the
 * defaults takes well under a second (a distinct 64 KiB schema compiles in ~0.3-0.6 s; a prompt at
 * the body cap is counted in about a second); five seconds leaves room for a loaded machine.
 */
export const DEFAULT_ENGINE_TASK_DEADLINE_MS = 5_000;

/**
 * Local-engine time per account per minute for compiling and checking schemas it has not seen.
 * A client that reuses its tools pays once per thread (a 2 KiB schema ~10-20 ms); 3 s a minute is
 * hundreds of fresh small schemas, or 5-10 distinct 43 KB ones, so no account keeps a thread busy.
 */
export const DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE = 3_000;

/**
 * With REDIS_URL: revocations arrive by pub/sub, so the auth cache may keep keys longer (10 s at most).
 * commandTimeoutMs is the longest a request waits for Redis: a busy gateway's own event-loop lag
 * reaches hundreds of ms in a burst, and a deadline that short turned lag into false outages.
 */
export const DEFAULT_REDIS = {
  commandTimeoutMs: 2_000,
  connectTimeoutMs: 1_000,
  authCacheTtlMs: 10_000,
} as const;

export const DEFAULT_UPSTREAM_TIMEOUTS = {
  connectTimeoutMs: 5_000,
  firstByteTimeoutMs: 60_000,
  responseTimeoutMs: 600_000,
  idleTimeoutMs: 30_000,
  maxEventBytes: 1024 * 1024,
} as const;

// Envoy's outlier-detection defaults (5 consecutive gateway failures, 30 s ejection) and a 10 %
// retry budget: under a full outage retries add at most a tenth to the upstream traffic.
export const DEFAULT_RESILIENCE = {
  retry: { budgetPercent: 10, reserve: 10, backoffMs: 50 },
  breaker: { consecutiveFailures: 5, ejectMs: 30_000 },
  rateLimitBackoffMaxMs: 10_000,
} as const;

// Polled every 2 s (within the 1–5 s engines' own dashboards use), each poll given 1 s: a sample is
// stale after three missed polls (6 s). Saturation at 8 waiting requests or 90 % of the KV cache:
// vLLM starts preempting near a full cache, and a queue of 8 is seconds of waiting at typical batch
// sizes. 100,000 conversations remembered for affinity: ~10 MB at most.
export const DEFAULT_ENGINE_SIGNALS = { pollMs: 2_000, timeoutMs: 1_000, affinityEntries: 100_000 } as const;
export const DEFAULT_ENGINE_SATURATION = { queueDepth: 8, kvCacheUsage: 0.9 } as const;

// A request may wait 10 s for a saturated model: long against a gateway's own work, short against a
// client's usual timeout (60 s and more), so that a refusal still leaves it time to go elsewhere.
// 1,000 waiting requests per process: a small fraction of the default 20,000 in flight
// (server.maxInFlight), each holding only its parsed request.
export const DEFAULT_QUEUE = { maxWaiting: 1_000, timeoutMs: 10_000 } as const;
export const DEFAULT_PRIORITY = 'normal';

// concurrency 64: at the default 600 rpm a key whose completions take ~5 s has ~50 in flight
// (Little's law), so the cap does not bind a key working within its rate, yet it stops one key from
// holding hundreds of long streams. account: an account gets what one key gets, shared by all its
// keys, so that more keys are never more quota (load-config.ts follows the file's rpm and tpm when
// it sets those but not `limits.account`; null turns account limits off).
export const DEFAULT_LIMITS = {
  rpm: 600,
  tpm: 1_000_000,
  concurrency: 64,
  account: { rpm: 600, tpm: 1_000_000 },
  failMode: 'open-local',
  failClosed: [],
  expectedInstances: null,
} as const;

export const DEFAULT_BUDGET_CURRENCY = 'USD';

const profile = (timeToFirstTokenMs: number, tokensPerSecond: number): LatencyProfile => ({ timeToFirstTokenMs, tokensPerSecond });

/** The default models, in the file format (see config-schema.ts). */
export const DEFAULT_MODELS = {
  auto: { description: 'Recommended starting model: routed to the best available general model.', route: ['default', 'fast'] },
  default: {
    description: 'General-purpose assistance.',
    local: { language: 'en', ...profile(60, 120) },
  },
  pro: {
    description: 'High intelligence and complex reasoning.',
    contextTokens: 131_072,
    maxOutputTokens: 16_384,
    local: { language: 'en', ...profile(200, 50) },
  },
  fast: {
    description: 'Very low latency routine tasks.',
    local: { language: 'en', ...profile(15, 400) },
  },
  hrllm: {
    description: 'Croatian-focused generation.',
    local: { language: 'hr', ...profile(80, 100) },
  },
} as const;

export const MODEL_DEFAULTS = {
  ownedBy: 'munja',
  contextTokens: 32_768,
  maxOutputTokens: 8_192,
  defaultMaxTokens: 1_024,
  upstreamWeight: 1,
  upstreamMaxConnections: 64,
} as const;

/** What a model's file entry means where it leaves a setting out (see config-schema.ts). */
export const MODEL_FILE_DEFAULTS = {
  local: { language: 'en', timeToFirstTokenMs: 0, tokensPerSecond: 0 },
  routePolicy: 'least-outstanding',
  supports: { tools: true, responseFormat: true, contentParts: false },
  upstreamApi: ['chat'],
} as const;

export const DEFAULT_ENGINE_MAX_QUEUE = 1024;
