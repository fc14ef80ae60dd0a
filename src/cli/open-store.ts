import { dataDirFrom, redisFrom } from '../config/load-config.ts';
import { openStore } from '../store/open-store.ts';
import type { StoreWithEvents } from '../store/publishing-store.ts';
import type { CliIo } from './cli-io.ts';

// The CLI may run far from Redis and nothing waits on it, so its commands get a longer deadline.
const CLI_REDIS_COMMAND_TIMEOUT_MS = 2_000;
const CLI_REDIS_CONNECT_TIMEOUT_MS = 5_000;

/** The server's store (REDIS_URL, else MUNJA_DATA); revocations are announced to running servers. */
export async function withStore<T>(io: CliIo, work: (store: StoreWithEvents) => Promise<T>): Promise<T> {
  const redis = redisFrom(io.env);
  const store = await openStore({
    dataDir: dataDirFrom(io.env),
    redis: redis && { ...redis, commandTimeoutMs: CLI_REDIS_COMMAND_TIMEOUT_MS, connectTimeoutMs: CLI_REDIS_CONNECT_TIMEOUT_MS },
  });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
