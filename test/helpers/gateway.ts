// Starts the whole service in-process on port 0 with a private data dir, for API tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { type RunningApp, startApp } from '../../src/app.ts';
import { type CreateApiKeyOptions, createApiKey } from '../../src/auth/create-key.ts';
import type { ConfigFile } from '../../src/config/config-file.ts';
import type { LogLevel } from '../../src/config/config-types.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { watchOrigin } from './watched-origins.ts';

/** The five documented ids with no simulated latency, so tests run fast. */
export const FAST_TEST_CONFIG: ConfigFile = {
  engine: { threads: 1 },
  models: {
    auto: { route: ['default', 'fast'] },
    default: { local: { language: 'en' } },
    pro: { local: { language: 'en' }, maxOutputTokens: 2048 },
    fast: { local: { language: 'en' } },
    hrllm: { local: { language: 'hr' } },
  },
};

export interface TestGateway {
  readonly app: RunningApp;
  readonly port: number;
  readonly origin: string;
  readonly baseURL: string;
  readonly dataDir: string;
  createKey(options?: Partial<CreateApiKeyOptions>): Promise<{ key: string; id: string; accountId: string }>;
  close(): Promise<void>;
}

export interface GatewayOptions {
  readonly dataDir?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Where the log lines go (at LOG_LEVEL, default info); by default nothing is logged. */
  readonly logTo?: NodeJS.WritableStream;
  /** With tracing configured (OTEL_* in env): where spans go instead of OTLP. */
  readonly spanProcessor?: SpanProcessor;
}

/**
 * `env` adds settings (e.g. REDIS_URL for the Redis store); `dataDir` keeps the data dir across a
 * restart (the caller then removes it).
 */
export async function startGateway(config: ConfigFile = FAST_TEST_CONFIG, options: GatewayOptions = {}): Promise<TestGateway> {
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'munja-test-'));
  const settings = loadConfig({ MUNJA_DATA: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', MUNJA_METRICS_PORT: 'off', ...options.env }, config);
  const logs = options.logTo === undefined ? createLogger('silent') : createLogger((options.env?.LOG_LEVEL ?? 'info') as LogLevel, options.logTo);
  const app = await startApp(settings, logs, { spanProcessor: options.spanProcessor });
  const origin = `${settings.tls ? 'https' : 'http'}://127.0.0.1:${app.port}`;
  watchOrigin(origin);
  return {
    app,
    port: app.port,
    origin,
    baseURL: `${origin}/v1`,
    dataDir: dir,
    async createKey(keyOptions = {}) {
      const created = await createApiKey(app.store, { accountEmail: 'test@example.com', createAccount: true, ...keyOptions });
      return { key: created.key, id: created.record.id, accountId: created.record.accountId };
    },
    async close() {
      await app.shutdown();
      if (options.dataDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
