// JSON Schema of the optional config file (MUNJA_CONFIG). Validated once at start with ajv.

const positiveInt = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const nonNegativeInt = { type: 'integer', minimum: 0, maximum: 2_147_483_647 } as const;

const localTarget = {
  type: 'object',
  additionalProperties: false,
  properties: {
    language: { enum: ['en', 'hr'] },
    timeToFirstTokenMs: nonNegativeInt,
    tokensPerSecond: nonNegativeInt,
  },
} as const;

const upstream = {
  type: 'object',
  additionalProperties: false,
  required: ['baseUrl'],
  properties: {
    baseUrl: { type: 'string', pattern: '^https?://\\S+$' },
    model: { type: 'string', minLength: 1 },
    apiKey: { type: 'string', minLength: 1 },
    weight: positiveInt,
    maxConnections: positiveInt,
    api: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['chat', 'responses', 'messages'] } },
  },
} as const;

const model = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: { type: 'string' },
    ownedBy: { type: 'string', minLength: 1 },
    contextTokens: positiveInt,
    maxOutputTokens: positiveInt,
    defaultMaxTokens: positiveInt,
    local: localTarget,
    upstreams: { type: 'array', minItems: 1, items: upstream },
    route: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    routePolicy: { enum: ['least-outstanding', 'first'] },
    supports: {
      type: 'object',
      additionalProperties: false,
      properties: { tools: { type: 'boolean' }, responseFormat: { type: 'boolean' }, contentParts: { type: 'boolean' } },
    },
    cache: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        ttlSeconds: { type: 'integer', minimum: 1, maximum: 30 * 86_400 },
        deterministicOnly: { type: 'boolean' },
      },
    },
  },
} as const;

/** `cache`: the response cache's bounds (cache-config.ts reads the same bounds for the environment). */
export const CACHE_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxBytes: { type: 'integer', minimum: 0, maximum: 2 ** 40 },
    maxEntryBytes: { type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 },
    singleFlightWaitMs: { type: 'integer', minimum: 0, maximum: 600_000 },
  },
} as const;

/** `responses`: stored Responses (`store: true`). responses-config.ts reads the same bounds for the environment. */
export const RESPONSES_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ttlSeconds: { type: 'integer', minimum: 1, maximum: 365 * 86_400 },
    maxStoredBytesPerAccount: { type: 'integer', minimum: 1, maximum: 2 ** 40 },
  },
} as const;

export const CONFIG_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBodyBytes: { type: 'integer', minimum: 1024, maximum: 256 * 1024 * 1024 },
        maxJsonDepth: { type: 'integer', minimum: 4, maximum: 1000 },
        bodyTimeoutMs: positiveInt,
        streamWriteStallMs: positiveInt,
        shutdownGraceMs: nonNegativeInt,
        drainDelayMs: { type: 'integer', minimum: 0, maximum: 300_000 },
        maxInFlight: positiveInt,
        maxInFlightPerKey: positiveInt,
        maxBufferedBodyBytes: { type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 * 1024 },
        maxRequestsPerAddress: positiveInt,
        trustProxy: { type: 'boolean' },
        authCacheTtlMs: { type: 'integer', minimum: 0, maximum: 10_000 },
        // Browser origins exactly as browsers send them: scheme://host[:port], no path.
        mcpAllowedOrigins: { type: 'array', maxItems: 100, items: { type: 'string', pattern: '^https?://[^/?#\\s]+$' } },
        dashboard: {
          type: 'object',
          additionalProperties: false,
          properties: {
            enabled: { type: 'boolean' },
            // true and false are the older spellings of 'open' and 'closed'.
            signUp: { enum: [true, false, 'open', 'email', 'invite', 'closed'] },
            signUpThrottle: {
              type: 'object',
              additionalProperties: false,
              properties: { addressSignUps: positiveInt, windowMs: { type: 'integer', minimum: 1_000, maximum: 7 * 86_400_000 } },
            },
            maxKeysPerAccount: { type: 'integer', minimum: 1, maximum: 100_000 },
            publicUrl: { type: 'string', pattern: '^https?://[^/?#\\s]+/?$' },
            mailFrom: { type: 'string', minLength: 3, maxLength: 320 },
            verificationTtlMs: { type: 'integer', minimum: 60_000, maximum: 30 * 86_400_000 },
            inviteTtlMs: { type: 'integer', minimum: 60_000, maximum: 365 * 86_400_000 },
            secureCookies: { type: 'boolean' },
            sessionTtlMs: { type: 'integer', minimum: 60_000, maximum: 90 * 86_400_000 },
            sessionIdleMs: { type: 'integer', minimum: 60_000, maximum: 90 * 86_400_000 },
            hashConcurrency: { type: 'integer', minimum: 1, maximum: 64 },
            trustProxy: { type: 'boolean' },
            signInThrottle: {
              type: 'object',
              additionalProperties: false,
              properties: { accountFailures: positiveInt, addressFailures: positiveInt, windowMs: { type: 'integer', minimum: 1_000, maximum: 86_400_000 } },
            },
          },
        },
      },
    },
    upstream: {
      type: 'object',
      additionalProperties: false,
      properties: {
        connectTimeoutMs: positiveInt,
        firstByteTimeoutMs: positiveInt,
        responseTimeoutMs: positiveInt,
        idleTimeoutMs: positiveInt,
        maxEventBytes: { type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024 },
        retry: {
          type: 'object',
          additionalProperties: false,
          properties: {
            budgetPercent: { type: 'integer', minimum: 0, maximum: 100 },
            reserve: { type: 'integer', minimum: 0, maximum: 10_000 },
            backoffMs: { type: 'integer', minimum: 0, maximum: 10_000 },
          },
        },
        breaker: {
          type: 'object',
          additionalProperties: false,
          properties: { consecutiveFailures: positiveInt, ejectMs: { type: 'integer', minimum: 1, maximum: 3_600_000 } },
        },
        rateLimitBackoffMaxMs: { type: 'integer', minimum: 0, maximum: 600_000 },
      },
    },
    redis: {
      type: 'object',
      additionalProperties: false,
      properties: {
        commandTimeoutMs: { type: 'integer', minimum: 1, maximum: 60_000 },
        connectTimeoutMs: { type: 'integer', minimum: 1, maximum: 60_000 },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      properties: {
        rpm: positiveInt,
        tpm: positiveInt,
        concurrency: nonNegativeInt,
        account: {
          anyOf: [
            { type: 'null' },
            { type: 'object', additionalProperties: false, required: ['rpm', 'tpm'], properties: { rpm: positiveInt, tpm: positiveInt } },
          ],
        },
        failMode: { enum: ['open-local', 'closed'] },
        failClosed: { type: 'array', maxItems: 100_000, items: { type: 'string', minLength: 1, maxLength: 128 } },
        expectedInstances: { type: 'integer', minimum: 1, maximum: 10_000 },
      },
    },
    engine: {
      type: 'object',
      additionalProperties: false,
      properties: { threads: { type: 'integer', minimum: 1, maximum: 256 }, maxQueue: positiveInt, taskDeadlineMs: { type: 'integer', minimum: 100, maximum: 600_000 }, schemaMsPerMinute: { type: 'integer', minimum: 1, maximum: 3_600_000 } },
    },
    responses: RESPONSES_FILE_SCHEMA,
    cache: CACHE_FILE_SCHEMA,
    defaultModels: { type: 'boolean' },
    models: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$' },
      additionalProperties: model,
    },
  },
} as const;

export interface LocalTargetFile {
  language?: 'en' | 'hr';
  timeToFirstTokenMs?: number;
  tokensPerSecond?: number;
}
export interface UpstreamFile {
  baseUrl: string;
  model?: string;
  apiKey?: string;
  weight?: number;
  maxConnections?: number;
  api?: Array<'chat' | 'responses' | 'messages'>;
}
export interface ModelFile {
  description?: string;
  ownedBy?: string;
  contextTokens?: number;
  maxOutputTokens?: number;
  defaultMaxTokens?: number;
  local?: LocalTargetFile;
  upstreams?: UpstreamFile[];
  route?: string[];
  routePolicy?: 'least-outstanding' | 'first';
  supports?: { tools?: boolean; responseFormat?: boolean; contentParts?: boolean };
  cache?: { enabled?: boolean; ttlSeconds?: number; deterministicOnly?: boolean };
}
export interface DashboardFile {
  enabled?: boolean;
  signUp?: boolean | 'open' | 'email' | 'invite' | 'closed';
  signUpThrottle?: { addressSignUps?: number; windowMs?: number };
  maxKeysPerAccount?: number;
  publicUrl?: string;
  mailFrom?: string;
  verificationTtlMs?: number;
  inviteTtlMs?: number;
  secureCookies?: boolean;
  sessionTtlMs?: number;
  sessionIdleMs?: number;
  hashConcurrency?: number;
  trustProxy?: boolean;
  signInThrottle?: { accountFailures?: number; addressFailures?: number; windowMs?: number };
}
export interface ConfigFile {
  server?: { maxBodyBytes?: number; maxJsonDepth?: number; bodyTimeoutMs?: number; streamWriteStallMs?: number; shutdownGraceMs?: number; drainDelayMs?: number; maxInFlight?: number; maxInFlightPerKey?: number; maxBufferedBodyBytes?: number; maxRequestsPerAddress?: number; trustProxy?: boolean; authCacheTtlMs?: number; mcpAllowedOrigins?: string[]; dashboard?: DashboardFile };
  upstream?: {
    connectTimeoutMs?: number; firstByteTimeoutMs?: number; responseTimeoutMs?: number; idleTimeoutMs?: number; maxEventBytes?: number;
    retry?: { budgetPercent?: number; reserve?: number; backoffMs?: number };
    breaker?: { consecutiveFailures?: number; ejectMs?: number };
    rateLimitBackoffMaxMs?: number;
  };
  redis?: { commandTimeoutMs?: number; connectTimeoutMs?: number };
  limits?: {
    rpm?: number; tpm?: number; concurrency?: number; account?: { rpm: number; tpm: number } | null;
    failMode?: 'open-local' | 'closed'; failClosed?: string[]; expectedInstances?: number;
  };
  engine?: { threads?: number; maxQueue?: number; taskDeadlineMs?: number; schemaMsPerMinute?: number };
  responses?: { ttlSeconds?: number; maxStoredBytesPerAccount?: number };
  cache?: { maxBytes?: number; maxEntryBytes?: number; singleFlightWaitMs?: number };
  /** With `models`: false serves only those; true (the default) keeps the default models they do not replace. */
  defaultModels?: boolean;
  models?: Record<string, ModelFile>;
}
