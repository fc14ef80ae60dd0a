// ioredis clients set up so that Redis trouble never hangs a request: every command has a short
// deadline, nothing waits in an offline queue (commands fail at once while disconnected), and the
// client reconnects by itself with a capped backoff. Standalone, Sentinel and Cluster (REDIS_URL).
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/config-types.ts';
import { parseRedisUrl, redactRedisUrl } from './redis-url.ts';

export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  /** Shown in CLIENT LIST. */
  readonly name?: string;
  /** Connection errors (each failed reconnect too). Without it they are ignored: the callers see failed commands. */
  readonly onError?: (error: Error) => void;
  /** null: no per-command deadline (the caller enforces its own); default: the config's. */
  readonly commandTimeoutMs?: number | null;
  /** connectRedis: how long to keep trying while Redis is not up yet (default 10 s). */
  readonly startupBudgetMs?: number;
}

const RECONNECT_BASE_MS = 50;
const RECONNECT_CAP_MS = 1_000;

/** Exponential backoff capped at 1 s plus jitter: service resumes about a second after Redis returns. */
export function reconnectDelay(attempt: number): number {
  const backoff = Math.min(RECONNECT_BASE_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 10), RECONNECT_CAP_MS);
  return backoff + Math.floor(Math.random() * 100);
}

/** A client that is not connected yet (lazyConnect); see connectRedis. */
export function createRedisClient(config: RedisConfig, options: RedisClientOptions = {}): RedisClient {
  const target = parseRedisUrl(config.url);
  const perConnection = {
    commandTimeout: options.commandTimeoutMs === null ? undefined : (options.commandTimeoutMs ?? config.commandTimeoutMs),
    connectTimeout: config.connectTimeoutMs,
    // 0: commands in flight when a connection drops fail at once instead of waiting for a reconnect.
    maxRetriesPerRequest: 0,
    connectionName: options.name ?? 'munja',
  } satisfies RedisOptions;
  const client = build();
  client.on('error', options.onError ?? (() => {}));
  return client;

  function build(): RedisClient {
    switch (target.kind) {
      case 'standalone':
        return new Redis(target.url, { ...perConnection, enableOfflineQueue: false, lazyConnect: true, retryStrategy: reconnectDelay });
      case 'sentinel':
        return new Redis({
          ...perConnection,
          enableOfflineQueue: false,
          lazyConnect: true,
          retryStrategy: reconnectDelay,
          sentinels: target.sentinels.map(({ host, port }) => ({ host, port })),
          name: target.name,
          db: target.db,
          username: target.username,
          password: target.password,
          sentinelUsername: target.sentinelUsername,
          sentinelPassword: target.sentinelPassword,
          sentinelRetryStrategy: reconnectDelay,
          sentinelCommandTimeout: config.connectTimeoutMs,
          ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        });
      case 'cluster': {
        const cluster: ClusterOptions = {
          enableOfflineQueue: false,
          lazyConnect: true,
          clusterRetryStrategy: reconnectDelay,
          clusterNodeRetryStrategy: reconnectDelay,
          redisOptions: {
            ...perConnection,
            username: target.username,
            password: target.password,
            ...(target.tls ? { tls: {} } : {}),
          },
        };
        return new Cluster(target.nodes.map(({ host, port }) => ({ host, port })), cluster);
      }
    }
  }
}

/**
 * Changes the deadline of the client's next commands. Start-up uses a longer one: a busy machine
 * may answer its first commands (script loads, the key secret) slower than the request-path deadline,
 * and failing to start is worse than waiting a little.
 */
export function setCommandTimeout(client: RedisClient, ms: number): void {
  if (client instanceof Cluster) {
    client.options.redisOptions = { ...client.options.redisOptions, commandTimeout: ms };
    for (const node of client.nodes()) node.options.commandTimeout = ms;
  } else {
    client.options.commandTimeout = ms;
  }
}

/** Creates a client and waits until it is ready; rejects (and gives up) when Redis cannot be reached. */
// At start Redis may still be coming up (a compose file starting both): keep trying for a while.
const STARTUP_BUDGET_MS = 10_000;
const STARTUP_RETRY_MS = 250;

export async function connectRedis(config: RedisConfig, options: RedisClientOptions = {}): Promise<RedisClient> {
  const deadline = performance.now() + (options.startupBudgetMs ?? STARTUP_BUDGET_MS);
  for (;;) {
    const client = createRedisClient(config, options);
    let cause: unknown;
    const remember = (error: Error) => { cause = error; };
    client.on('error', remember);
    try {
      await client.connect();
      return client;
    } catch (error) {
      client.disconnect();
      cause ??= error;
      if (performance.now() + STARTUP_RETRY_MS >= deadline) {
        // oxlint-disable-next-line preserve-caught-error -- the first failure is the cause: it says why
        throw new Error(`cannot connect to Redis at ${redactRedisUrl(config.url)}: ${(cause as Error).message}`, { cause });
      }
      await new Promise((resolve) => setTimeout(resolve, STARTUP_RETRY_MS));
    } finally {
      client.off('error', remember);
    }
  }
}

/** QUIT when connected (replies in flight arrive first), else just drop the connection. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
