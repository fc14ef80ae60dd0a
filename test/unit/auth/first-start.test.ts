// The first start never overwrites a key file: a start on another store with the same data dir
// (SQLite, then Redis) leaves the key it finds there, which still works, and saves its own beside it.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createFirstKey, FIRST_KEY_FILE } from '../../../src/auth/first-start.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';

async function firstKeyOnANewStore(dataDir: string) {
  const store = SqliteStore.open(mkdtempSync(join(tmpdir(), 'munja-first-store-')));
  try {
    return await createFirstKey(store, dataDir);
  } finally {
    await store.close();
  }
}

it('saves the first key in first-api-key.txt, then beside an existing one, never over it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'munja-first-key-'));
  const first = await firstKeyOnANewStore(dataDir);
  expect(first!.file).toBe(join(dataDir, FIRST_KEY_FILE));
  const firstKey = readFileSync(first!.file, 'utf8');
  expect(firstKey).toMatch(/^sk_munja_\w+\n$/);

  const second = await firstKeyOnANewStore(dataDir);
  expect(second!.file).toBe(join(dataDir, 'first-api-key-2.txt'));
  expect(readFileSync(first!.file, 'utf8')).toBe(firstKey);
  expect(readFileSync(second!.file, 'utf8')).toMatch(/^sk_munja_\w+\n$/);
  expect(statSync(second!.file).mode & 0o777).toBe(0o600);
});

it('does not take over a file it did not create', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'munja-first-key-'));
  writeFileSync(join(dataDir, FIRST_KEY_FILE), 'someone else\'s\n', { mode: 0o644 });
  const saved = await firstKeyOnANewStore(dataDir);
  expect(saved!.file).toBe(join(dataDir, 'first-api-key-2.txt'));
  expect(readFileSync(join(dataDir, FIRST_KEY_FILE), 'utf8')).toBe('someone else\'s\n');
});
