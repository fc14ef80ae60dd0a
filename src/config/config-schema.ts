// JSON Schema of the optional config file (MUNJA_CONFIG). Validated once at start with ajv. Every
// setting carries its description and, where it is a constant, its default (from default-config.ts):
// docs/configuration.md's reference is generated from them (config-reference.ts).
import { DEFAULT_BUDGET_CURRENCY, DEFAULT_CACHE, DEFAULT_CACHE_TTL_SECONDS, DEFAULT_DASHBOARD, DEFAULT_ENGINE_MAX_QUEUE, DEFAULT_ENGINE_SATURATION, DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE, DEFAULT_ENGINE_SIGNALS, DEFAULT_ENGINE_TASK_DEADLINE_MS, DEFAULT_LIMITS, DEFAULT_PRIORITY, DEFAULT_QUEUE, DEFAULT_REDIS, DEFAULT_RESILIENCE, DEFAULT_RESPONSES, DEFAULT_SERVER, DEFAULT_UPSTREAM_TIMEOUTS, MODEL_DEFAULTS, MODEL_FILE_DEFAULTS } from './default-config.ts';

const positiveInt = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const nonNegativeInt = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

/** A setting: its schema, what it does, and its default when that is one constant. */
function setting<S extends object>(schema: S, description: string, defaultValue?: unknown): S & { description: string } {
  return defaultValue === undefined ? { ...schema, description } : { ...schema, description, default: defaultValue };
}

const localTarget = {
  type: 'object',
  additionalProperties: false,
  description: 'Serve the model from the built-in engine, at this speed.',
  properties: {
    language: setting({ enum: ['en', 'hr'] }, 'The language of the text it writes.', MODEL_FILE_DEFAULTS.local.language),
    timeToFirstTokenMs: setting(nonNegativeInt, 'Delay before the first token, in ms.', MODEL_FILE_DEFAULTS.local.timeToFirstTokenMs),
    tokensPerSecond: setting(nonNegativeInt, 'Pace of the tokens after it, per second (0: all at once).', MODEL_FILE_DEFAULTS.local.tokensPerSecond),
  },
} as const;

const upstream = {
  type: 'object',
  additionalProperties: false,
  required: ['baseUrl'],
  properties: {
    baseUrl: setting({ type: 'string', pattern: '^https?://\\S+$' }, 'The server\'s OpenAI-compatible base URL: what comes before `/chat/completions` (`…/v1`). Required.'),
    model: setting({ type: 'string', minLength: 1 }, 'The model name sent to it; the public id when unset.'),
    apiKey: setting({ type: 'string', minLength: 1 }, 'Bearer key sent to it.'),
    weight: setting(positiveInt, 'Share of the traffic among the model\'s healthy upstreams.', MODEL_DEFAULTS.upstreamWeight),
    maxConnections: setting(positiveInt, 'Connections kept open to it.', MODEL_DEFAULTS.upstreamMaxConnections),
    api: setting({ type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['chat', 'responses', 'messages'] } }, 'The APIs it speaks (`chat` must be listed): a Responses or Messages request is relayed to it as sent.', MODEL_FILE_DEFAULTS.upstreamApi),
    engine: { enum: ['vllm', 'sglang', 'llamacpp', 'openai', 'auto'], description: 'The inference engine behind it: its load is polled and the upstream chosen by it; `auto`: recognised from its metrics page at start.' },
    saturation: {
      type: 'object',
      additionalProperties: false,
      description: 'When its engine counts as saturated (only with `engine`).',
      properties: {
        queueDepth: { ...positiveInt, description: 'Requests waiting in the engine\'s queue.', default: DEFAULT_ENGINE_SATURATION.queueDepth },
        kvCacheUsage: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'Share of the engine\'s KV cache in use.', default: DEFAULT_ENGINE_SATURATION.kvCacheUsage },
      },
    },
    maxConcurrent: setting(positiveInt, 'The most requests sent to it at once: past it the upstream counts as saturated and new requests wait in the admission queue (unset: no cap).'),
  },
} as const;

const priorityBand = { enum: ['high', 'normal', 'low'] } as const;

const price = { type: 'number', minimum: 0, maximum: 1_000_000 } as const;

/** An amount in the currency (up to six decimals count) and its period, or null for none; one schema rather than anyOf, whose errors name neither field. */
const budget = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['amount', 'period'],
  properties: { amount: { type: 'number', minimum: 0, maximum: 1_000_000_000 }, period: { enum: ['day', 'month', 'total'] } },
} as const;

const model = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: setting({ type: 'string' }, 'Shown in the model list.'),
    ownedBy: setting({ type: 'string', minLength: 1 }, '`owned_by` in the model list.', MODEL_DEFAULTS.ownedBy),
    contextTokens: setting(positiveInt, 'Prompt and completion tokens the model takes.', MODEL_DEFAULTS.contextTokens),
    maxOutputTokens: setting(positiveInt, 'The largest `max_tokens` a request may ask for.', MODEL_DEFAULTS.maxOutputTokens),
    defaultMaxTokens: setting(positiveInt, 'Completion tokens reserved against the token limit when a request sets no `max_tokens`.', MODEL_DEFAULTS.defaultMaxTokens),
    local: localTarget,
    upstreams: setting({ type: 'array', minItems: 1, items: upstream }, 'Serve the model from these OpenAI-compatible servers (each as below).'),
    route: setting({ type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }, 'Make the model an alias over these models (as `auto` is).'),
    routePolicy: setting({ enum: ['least-outstanding', 'first'] }, 'How a route picks: the model with the fewest requests in flight, or the first that can serve.', MODEL_FILE_DEFAULTS.routePolicy),
    price: {
      type: 'object',
      additionalProperties: false,
      required: ['input', 'output'],
      description: 'What the model costs, per million tokens in `budgets.currency`; a model without a price costs 0.',
      properties: {
        input: setting(price, 'Per million prompt tokens. Required with a price.'),
        output: setting(price, 'Per million completion tokens. Required with a price.'),
        cachedInput: setting(price, 'Per million prompt tokens the server read from its cache (default: the input price).'),
      },
    },
    supports: {
      type: 'object',
      additionalProperties: false,
      description: 'What the model\'s server honours beyond plain chat; the rest is refused with `unsupported_parameter`.',
      properties: {
        tools: setting({ type: 'boolean' }, '`tools`, `tool_choice` and tool turns in `messages`.', MODEL_FILE_DEFAULTS.supports.tools),
        responseFormat: setting({ type: 'boolean' }, '`response_format` (`json_object`, `json_schema`).', MODEL_FILE_DEFAULTS.supports.responseFormat),
        contentParts: setting({ type: 'boolean' }, 'Message content as text and image parts.', MODEL_FILE_DEFAULTS.supports.contentParts),
      },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      description: 'The response cache for this model (off without it; `x-munja-cache: on` turns it on for one request).',
      properties: {
        enabled: setting({ type: 'boolean' }, 'Cache this model\'s replies.', true),
        ttlSeconds: setting({ type: 'integer', minimum: 1, maximum: 30 * 86_400 }, 'How long a cached reply is served.', DEFAULT_CACHE_TTL_SECONDS),
        deterministicOnly: setting({ type: 'boolean' }, 'Cache only requests the model answers the same way each time (`temperature: 0`, or a `seed`).', true),
      },
    },
  },
} as const;

/** `cache`: the response cache's bounds (cache-config.ts reads the same bounds for the environment). */
export const CACHE_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'The response cache: exact-match replies of deterministic requests, per account.',
  properties: {
    maxBytes: setting({ type: 'integer', minimum: 0, maximum: 2 ** 40 }, 'Bytes the cache may hold: in memory per process, or with Redis per account (`MUNJA_CACHE_MAX_BYTES` wins; 0 turns the cache off).', DEFAULT_CACHE.maxBytes),
    maxEntryBytes: setting({ type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 }, 'The largest reply that is kept.', DEFAULT_CACHE.maxEntryBytes),
    singleFlightWaitMs: setting({ type: 'integer', minimum: 0, maximum: 600_000 }, 'How long identical requests wait for the first one\'s reply before calling on their own, in ms.', DEFAULT_CACHE.singleFlightWaitMs),
    maxAccountShare: setting({ type: 'number', exclusiveMinimum: 0, maximum: 1 }, 'In memory, the share of `maxBytes` one account\'s replies may hold; past it the account\'s own least recently used replies go first (1: no per-account bound; with Redis, `maxBytes` is each account\'s cap).', DEFAULT_CACHE.maxAccountShare),
  },
} as const;

/** `responses`: stored Responses (`store: true`). responses-config.ts reads the same bounds for the environment. */
export const RESPONSES_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Stored Responses (`store: true`).',
  properties: {
    ttlSeconds: setting({ type: 'integer', minimum: 1, maximum: 365 * 86_400 }, 'How long a stored response is kept (`MUNJA_RESPONSES_TTL_SECONDS` wins).', DEFAULT_RESPONSES.ttlSeconds),
    maxStoredBytesPerAccount: setting({ type: 'integer', minimum: 1, maximum: 2 ** 40 }, 'Stored bytes one account may hold at once (`MUNJA_RESPONSES_MAX_STORED_BYTES` wins).', DEFAULT_RESPONSES.maxStoredBytesPerAccount),
  },
} as const;

const dashboard = {
  type: 'object',
  additionalProperties: false,
  description: 'The web dashboard.',
  properties: {
    enabled: setting({ type: 'boolean' }, 'Serve the dashboard and its API.', DEFAULT_DASHBOARD.enabled),
    // true and false are the older spellings of 'open' and 'closed'.
    signUp: setting({ enum: [true, false, 'open', 'email', 'invite', 'closed'] }, 'Who may create an account: anyone, the owner of a mailbox, an invited address, or nobody (`true`/`false`: `open`/`closed`).', DEFAULT_DASHBOARD.signUp),
    signUpThrottle: {
      type: 'object',
      additionalProperties: false,
      description: 'Sign-ups one client address may make in a window.',
      properties: {
        addressSignUps: setting(positiveInt, 'Sign-ups per address (an IPv6 /64) in the window.', DEFAULT_DASHBOARD.signUpThrottle.addressSignUps),
        windowMs: setting({ type: 'integer', minimum: 1_000, maximum: 7 * 86_400_000 }, 'The window, in ms.', DEFAULT_DASHBOARD.signUpThrottle.windowMs),
      },
    },
    maxKeysPerAccount: setting({ type: 'integer', minimum: 1, maximum: 100_000 }, 'Keys one account may hold.', DEFAULT_DASHBOARD.maxKeysPerAccount),
    publicUrl: setting({ type: 'string', pattern: '^https?://[^/?#\\s]+/?$' }, 'The dashboard\'s address as people reach it, for links in mail.'),
    mailFrom: setting({ type: 'string', minLength: 3, maxLength: 320 }, 'From address of sign-up mail (`MUNJA_MAIL_FROM` wins).'),
    verificationTtlMs: setting({ type: 'integer', minimum: 60_000, maximum: 30 * 86_400_000 }, 'How long an email confirmation link works, in ms.', DEFAULT_DASHBOARD.verificationTtlMs),
    inviteTtlMs: setting({ type: 'integer', minimum: 60_000, maximum: 365 * 86_400_000 }, 'How long an invite works, in ms.', DEFAULT_DASHBOARD.inviteTtlMs),
    secureCookies: setting({ type: 'boolean' }, 'The session cookie is `Secure` (`MUNJA_INSECURE_COOKIES=1` turns it off for development).', DEFAULT_DASHBOARD.secureCookies),
    sessionTtlMs: setting({ type: 'integer', minimum: 60_000, maximum: 90 * 86_400_000 }, 'The longest a session lasts, in ms.', DEFAULT_DASHBOARD.sessionTtlMs),
    sessionIdleMs: setting({ type: 'integer', minimum: 60_000, maximum: 90 * 86_400_000 }, 'A session unused this long ends, in ms.', DEFAULT_DASHBOARD.sessionIdleMs),
    hashConcurrency: setting({ type: 'integer', minimum: 1, maximum: 64 }, 'Password hashes computed at once.', DEFAULT_DASHBOARD.hashConcurrency),
    trustProxy: setting({ type: 'boolean' }, 'Take the dashboard\'s client address from `X-Forwarded-For`.', DEFAULT_DASHBOARD.trustProxy),
    signInThrottle: {
      type: 'object',
      additionalProperties: false,
      description: 'Failed sign-ins allowed in a window before more are refused.',
      properties: {
        accountFailures: setting(positiveInt, 'Failures per account in the window.', DEFAULT_DASHBOARD.signInThrottle.accountFailures),
        addressFailures: setting(positiveInt, 'Failures per client address in the window.', DEFAULT_DASHBOARD.signInThrottle.addressFailures),
        windowMs: setting({ type: 'integer', minimum: 1_000, maximum: 86_400_000 }, 'The window, in ms.', DEFAULT_DASHBOARD.signInThrottle.windowMs),
      },
    },
  },
} as const;

export const CONFIG_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      description: 'The HTTP server: bodies, streams, shutdown and the caps that keep a process responsive.',
      properties: {
        maxBodyBytes: setting({ type: 'integer', minimum: 1024, maximum: 256 * 1024 * 1024 }, 'The largest request body (413 beyond it).', DEFAULT_SERVER.maxBodyBytes),
        maxJsonDepth: setting({ type: 'integer', minimum: 4, maximum: 1000 }, 'The deepest nesting a JSON body may have.', DEFAULT_SERVER.maxJsonDepth),
        bodyTimeoutMs: setting(positiveInt, 'Time a client has to send its whole body, in ms.', DEFAULT_SERVER.bodyTimeoutMs),
        streamWriteStallMs: setting(positiveInt, 'A streaming client that reads nothing for this long is disconnected, in ms.', DEFAULT_SERVER.streamWriteStallMs),
        shutdownGraceMs: setting(nonNegativeInt, 'On SIGTERM, how long requests in flight may finish, in ms.', DEFAULT_SERVER.shutdownGraceMs),
        drainDelayMs: setting({ type: 'integer', minimum: 0, maximum: 300_000 }, 'On SIGTERM, how long `/readyz` says 503 before the port closes, in ms.', DEFAULT_SERVER.drainDelayMs),
        maxInFlight: setting(positiveInt, 'Requests and streams one process has in flight; past it, 503 `overloaded`.', DEFAULT_SERVER.maxInFlight),
        maxInFlightPerKey: setting(positiveInt, 'The same, for one key in one process.', DEFAULT_SERVER.maxInFlightPerKey),
        maxBufferedBodyBytes: setting({ type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 * 1024 }, 'Request body bytes one process holds at once while reading them (at least `maxBodyBytes`).', DEFAULT_SERVER.maxBufferedBodyBytes),
        maxRequestsPerAddress: setting(positiveInt, 'Requests one client address (an IPv6 /64) has open in one process; past it, 429 `too_many_open_requests`.', DEFAULT_SERVER.maxRequestsPerAddress),
        trustProxy: setting({ type: 'boolean' }, 'Take the client address from the last `X-Forwarded-For` entry (only behind a proxy that sets it).', DEFAULT_SERVER.trustProxy),
        watchConfig: setting({ type: 'boolean' }, 'Reload this file when it changes, as `munja reload` does, half a second after the last write.', DEFAULT_SERVER.watchConfig),
        authCacheTtlMs: setting({ type: 'integer', minimum: 0, maximum: 10_000 }, `How long a checked key is trusted without asking the store, in ms (${DEFAULT_REDIS.authCacheTtlMs} with \`REDIS_URL\`).`, DEFAULT_SERVER.authCacheTtlMs),
        // Browser origins exactly as browsers send them: scheme://host[:port], no path.
        mcpAllowedOrigins: setting({ type: 'array', maxItems: 100, items: { type: 'string', pattern: '^https?://[^/?#\\s]+$' } }, 'Browser origins allowed to call `/mcp` (`scheme://host:port`).', DEFAULT_SERVER.mcpAllowedOrigins),
        dashboard,
      },
    },
    upstream: {
      type: 'object',
      additionalProperties: false,
      description: 'Munja\'s own timeouts and resilience for model servers.',
      properties: {
        connectTimeoutMs: setting(positiveInt, 'TCP and TLS connection set-up, in ms.', DEFAULT_UPSTREAM_TIMEOUTS.connectTimeoutMs),
        firstByteTimeoutMs: setting(positiveInt, 'Request sent to response headers of a stream (time to first token), in ms.', DEFAULT_UPSTREAM_TIMEOUTS.firstByteTimeoutMs),
        responseTimeoutMs: setting(positiveInt, 'A whole non-streaming generation, in ms.', DEFAULT_UPSTREAM_TIMEOUTS.responseTimeoutMs),
        idleTimeoutMs: setting(positiveInt, 'Silence allowed between two chunks, in ms.', DEFAULT_UPSTREAM_TIMEOUTS.idleTimeoutMs),
        maxEventBytes: setting({ type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 }, 'The largest stream event; past it the stream ends in an error.', DEFAULT_UPSTREAM_TIMEOUTS.maxEventBytes),
        retry: {
          type: 'object',
          additionalProperties: false,
          description: 'Retries of failed upstream attempts.',
          properties: {
            budgetPercent: setting({ type: 'integer', minimum: 0, maximum: 100 }, 'Retries allowed as a share of requests.', DEFAULT_RESILIENCE.retry.budgetPercent),
            reserve: setting({ type: 'integer', minimum: 0, maximum: 10_000 }, 'Retries always allowed on top of the budget.', DEFAULT_RESILIENCE.retry.reserve),
            backoffMs: setting({ type: 'integer', minimum: 0, maximum: 10_000 }, 'Wait before a retry, in ms.', DEFAULT_RESILIENCE.retry.backoffMs),
          },
        },
        breaker: {
          type: 'object',
          additionalProperties: false,
          description: 'The circuit breaker per upstream.',
          properties: {
            consecutiveFailures: setting(positiveInt, 'Failures in a row that eject an upstream.', DEFAULT_RESILIENCE.breaker.consecutiveFailures),
            ejectMs: setting({ type: 'integer', minimum: 1, maximum: 3_600_000 }, 'How long an ejected upstream rests, in ms.', DEFAULT_RESILIENCE.breaker.ejectMs),
          },
        },
        rateLimitBackoffMaxMs: setting({ type: 'integer', minimum: 0, maximum: 600_000 }, 'The longest an upstream\'s 429 `Retry-After` keeps it aside, in ms.', DEFAULT_RESILIENCE.rateLimitBackoffMaxMs),
        engineSignals: {
          type: 'object',
          additionalProperties: false,
          description: 'Polling of the engines\' load, and prefix affinity.',
          properties: {
            pollMs: { type: 'integer', minimum: 100, maximum: 60_000, description: 'How often each engine\'s metrics are read, in ms.', default: DEFAULT_ENGINE_SIGNALS.pollMs },
            timeoutMs: { type: 'integer', minimum: 50, maximum: 60_000, description: 'How long one poll may take, in ms.', default: DEFAULT_ENGINE_SIGNALS.timeoutMs },
            affinityEntries: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Conversations whose upstream is remembered (0: none).', default: DEFAULT_ENGINE_SIGNALS.affinityEntries },
          },
        },
      },
    },
    redis: {
      type: 'object',
      additionalProperties: false,
      description: 'Deadlines of Redis calls, with `REDIS_URL`.',
      properties: {
        commandTimeoutMs: setting({ type: 'integer', minimum: 1, maximum: 60_000 }, 'The longest a request waits for a Redis call, in ms.', DEFAULT_REDIS.commandTimeoutMs),
        connectTimeoutMs: setting({ type: 'integer', minimum: 1, maximum: 60_000 }, 'Connecting to Redis, in ms.', DEFAULT_REDIS.connectTimeoutMs),
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: 'The default rate limits of every key and account.',
      properties: {
        rpm: setting(positiveInt, 'Requests per minute per key.', DEFAULT_LIMITS.rpm),
        tpm: setting(positiveInt, 'Tokens per minute per key (prompt plus `max_tokens` reserved, settled on real usage).', DEFAULT_LIMITS.tpm),
        concurrency: setting(nonNegativeInt, 'Requests one key has in flight (0: no cap).', DEFAULT_LIMITS.concurrency),
        account: setting({
          anyOf: [
            { type: 'null' },
            { type: 'object', additionalProperties: false, required: ['rpm', 'tpm'], properties: { rpm: positiveInt, tpm: positiveInt } },
          ],
        }, 'Buckets shared by all keys of an account, `{"rpm", "tpm"}` (default: what one key gets); `null`: none.', DEFAULT_LIMITS.account),
        failMode: setting({ enum: ['open-local', 'closed'] }, 'While Redis is unreachable: each instance enforces its share, or requests are refused 503.', DEFAULT_LIMITS.failMode),
        failClosed: setting({ type: 'array', maxItems: 100_000, items: { type: 'string', minLength: 1, maxLength: 128 } }, 'Key and account ids refused 503 while Redis is unreachable, whatever `failMode` says.', DEFAULT_LIMITS.failClosed),
        expectedInstances: setting({ type: 'integer', minimum: 1, maximum: 10_000 }, 'The instance count the shares are computed with during an outage (unset: the live count).'),
        priority: setting({
          anyOf: [
            priorityBand,
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                default: priorityBand,
                keys: { type: 'object', maxProperties: 100_000, propertyNames: { minLength: 1, maxLength: 128 }, additionalProperties: priorityBand },
                accounts: { type: 'object', maxProperties: 100_000, propertyNames: { minLength: 1, maxLength: 128 }, additionalProperties: priorityBand },
              },
            },
          ],
        }, 'The band (`high`, `normal`, `low`) a key\'s requests wait in when its model is saturated: a band, or `{"default", "keys", "accounts"}` naming key and account ids. A band set on the key or its account wins.', DEFAULT_PRIORITY),
        queue: {
          type: 'object',
          additionalProperties: false,
          description: 'The admission queue: requests for a model whose upstreams are all saturated wait here, per process.',
          properties: {
            maxWaiting: setting(positiveInt, 'Requests waiting at once in this process, all models together; past it a request is refused 503 `overloaded`.', DEFAULT_QUEUE.maxWaiting),
            timeoutMs: setting({ type: 'integer', minimum: 1, maximum: 300_000 }, 'The longest a request waits, in ms; then it is refused 503 `overloaded`.', DEFAULT_QUEUE.timeoutMs),
          },
        },
      },
    },
    budgets: {
      type: 'object',
      additionalProperties: false,
      description: 'Spend budgets: an amount in the currency over a period (`day`, `month` in UTC, or `total`), reserved at admission and settled on real usage.',
      properties: {
        currency: setting({ type: 'string', pattern: '^[A-Z]{3}$' }, 'The currency every price and budget is in (an ISO 4217 code).', DEFAULT_BUDGET_CURRENCY),
        key: setting(budget, 'Every key\'s budget, `{"amount", "period"}`; `null`: none.'),
        account: setting(budget, 'Every account\'s budget, shared by its keys; `null`: none.'),
        keys: setting({ type: 'object', maxProperties: 100_000, propertyNames: { minLength: 1, maxLength: 128 }, additionalProperties: budget }, 'Budgets of single keys by key id, over `key`.'),
        accounts: setting({ type: 'object', maxProperties: 100_000, propertyNames: { minLength: 1, maxLength: 128 }, additionalProperties: budget }, 'Budgets of single accounts by account id, over `account`.'),
      },
    },
    engine: {
      type: 'object',
      additionalProperties: false,
      description: 'The built-in engine\'s threads.',
      properties: {
        threads: setting({ type: 'integer', minimum: 1, maximum: 256 }, 'Engine threads (default: the cores, at most 4).'),
        maxQueue: setting(positiveInt, 'Tasks waiting for a thread; past it, 503 `overloaded`.', DEFAULT_ENGINE_MAX_QUEUE),
        taskDeadlineMs: setting({ type: 'integer', minimum: 100, maximum: 600_000 }, 'The longest one task may run on its thread, in ms.', DEFAULT_ENGINE_TASK_DEADLINE_MS),
        schemaMsPerMinute: setting({ type: 'integer', minimum: 1, maximum: 3_600_000 }, 'Engine time each account gets per minute for compiling schemas it has not seen, in ms.', DEFAULT_ENGINE_SCHEMA_MS_PER_MINUTE),
      },
    },
    responses: RESPONSES_FILE_SCHEMA,
    cache: CACHE_FILE_SCHEMA,
    defaultModels: setting({ type: 'boolean' }, 'Keep the five default models beside the file\'s (`false`: serve only the file\'s).', true),
    models: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$' },
      description: 'Models by public id, merged over the defaults; each has one of `local`, `upstreams` or `route`.',
      additionalProperties: model,
    },
  },
} as const;
