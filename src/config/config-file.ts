// The config file's shape as TypeScript: what CONFIG_FILE_SCHEMA (config-schema.ts) admits, for the
// code that reads a validated file.
export interface LocalTargetFile {
  language?: 'en' | 'hr';
  timeToFirstTokenMs?: number;
  tokensPerSecond?: number;
}
export type PriorityBandFile = 'high' | 'normal' | 'low';
export interface UpstreamFile {
  baseUrl: string;
  model?: string;
  apiKey?: string;
  weight?: number;
  maxConnections?: number;
  api?: Array<'chat' | 'responses' | 'messages'>;
  engine?: 'vllm' | 'sglang' | 'llamacpp' | 'openai' | 'auto';
  saturation?: { queueDepth?: number; kvCacheUsage?: number };
  maxConcurrent?: number;
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
  /** Per million tokens, in `budgets.currency`. */
  price?: { input: number; output: number; cachedInput?: number };
  cache?: { enabled?: boolean; ttlSeconds?: number; deterministicOnly?: boolean };
}
export type BudgetFile = { amount: number; period: 'day' | 'month' | 'total' } | null;
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
  server?: { maxBodyBytes?: number; maxJsonDepth?: number; bodyTimeoutMs?: number; streamWriteStallMs?: number; shutdownGraceMs?: number; drainDelayMs?: number; maxInFlight?: number; maxInFlightPerKey?: number; maxBufferedBodyBytes?: number; maxRequestsPerAddress?: number; trustProxy?: boolean; watchConfig?: boolean; authCacheTtlMs?: number; mcpAllowedOrigins?: string[]; dashboard?: DashboardFile };
  upstream?: {
    connectTimeoutMs?: number; firstByteTimeoutMs?: number; responseTimeoutMs?: number; idleTimeoutMs?: number; maxEventBytes?: number;
    retry?: { budgetPercent?: number; reserve?: number; backoffMs?: number };
    breaker?: { consecutiveFailures?: number; ejectMs?: number };
    rateLimitBackoffMaxMs?: number;
    engineSignals?: { pollMs?: number; timeoutMs?: number; affinityEntries?: number };
  };
  redis?: { commandTimeoutMs?: number; connectTimeoutMs?: number };
  limits?: {
    rpm?: number; tpm?: number; concurrency?: number; account?: { rpm: number; tpm: number } | null;
    failMode?: 'open-local' | 'closed'; failClosed?: string[]; expectedInstances?: number;
    priority?: PriorityBandFile | { default?: PriorityBandFile; keys?: Record<string, PriorityBandFile>; accounts?: Record<string, PriorityBandFile> };
    queue?: { maxWaiting?: number; timeoutMs?: number };
  };
  budgets?: { currency?: string; key?: BudgetFile; account?: BudgetFile; keys?: Record<string, BudgetFile>; accounts?: Record<string, BudgetFile> };
  engine?: { threads?: number; maxQueue?: number; taskDeadlineMs?: number; schemaMsPerMinute?: number };
  responses?: { ttlSeconds?: number; maxStoredBytesPerAccount?: number };
  cache?: { maxBytes?: number; maxEntryBytes?: number; singleFlightWaitMs?: number; maxAccountShare?: number };
  /** With `models`: false serves only those; true (the default) keeps the default models they do not replace. */
  defaultModels?: boolean;
  models?: Record<string, ModelFile>;
}
