// On a store with no accounts, create an admin account and a first key so that the start command
// is all a newcomer needs. Never on a store that already has accounts. The key goes into a file
// only its owner can read, never into the logs: container logs are kept, and read by many.
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../store/store.ts';
import { createApiKey } from './create-key.ts';

export const FIRST_ADMIN_EMAIL = 'admin@munja.local';
export const FIRST_KEY_FILE = 'first-api-key.txt';

export interface FirstKey {
  readonly keyId: string;
  /** Absolute path of the file holding the key (mode 0600). */
  readonly file: string;
}

/** Returns where the new key was saved, or null when the store already had accounts. */
export async function createFirstKey(store: Store, dataDir: string): Promise<FirstKey | null> {
  if ((await store.countAccounts()) > 0) return null;
  // Opened before the key exists, so that an unwritable data dir costs no key.
  let opened: { file: string; fd: number };
  try {
    mkdirSync(dataDir, { recursive: true });
    opened = openNewKeyFile(dataDir);
  } catch (error) {
    throw new Error(`cannot save the first API key in ${join(dataDir, FIRST_KEY_FILE)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  const { file, fd } = opened;
  try {
    const created = await createApiKey(store, { accountEmail: FIRST_ADMIN_EMAIL, name: 'first key', createAccount: true, isAdmin: true });
    writeSync(fd, `${created.key}\n`);
    return { keyId: created.record.id, file };
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * A file of our own (created here, mode 0600), never one that exists: a key file left by a start on
 * another store (SQLite, then Redis, with the same data dir) holds a key that still works, so the next
 * one goes beside it as first-api-key-2.txt, -3, ….
 */
function openNewKeyFile(dataDir: string): { file: string; fd: number } {
  for (let number = 1; ; number++) {
    const file = join(dataDir, number === 1 ? FIRST_KEY_FILE : FIRST_KEY_FILE.replace('.txt', `-${number}.txt`));
    try {
      return { file, fd: openSync(file, 'wx', 0o600) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || number >= 100) throw error;
    }
  }
}
