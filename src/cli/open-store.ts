import { dataDirFrom } from '../config/load-config.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import type { CliIo } from './cli-io.ts';

export async function withStore<T>(io: CliIo, work: (store: Store) => Promise<T>): Promise<T> {
  const store = SqliteStore.open(dataDirFrom(io.env));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
