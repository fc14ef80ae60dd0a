// The store the settings ask for: Redis when REDIS_URL is set (shared by every instance), else the
// embedded SQLite file in the data dir. Both announce revocations on `events`.
import type { RedisConfig } from '../config/config-types.ts';
import { LocalKeyEvents } from './key-events.ts';
import { PublishingStore, type StoreWithEvents } from './publishing-store.ts';
import type { RedisClientOptions } from './redis-connection.ts';
import { RedisKeyEvents } from './redis-key-events.ts';
import { RedisStore } from './redis-store.ts';
import { SqliteStore } from './sqlite-store.ts';

export interface StoreSettings {
  readonly dataDir: string;
  readonly redis: RedisConfig | null;
}

export async function openStore(settings: StoreSettings, options: RedisClientOptions = {}): Promise<StoreWithEvents> {
  if (settings.redis === null) return new PublishingStore(SqliteStore.open(settings.dataDir), new LocalKeyEvents());
  const store = await RedisStore.connect(settings.redis, options);
  return new PublishingStore(store, new RedisKeyEvents(store.client, settings.redis, options), store.client);
}
