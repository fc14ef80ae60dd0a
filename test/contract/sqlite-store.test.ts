import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { runStoreContract } from './store-contract.ts';

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

runStoreContract('SqliteStore', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'munja-store-contract-'));
  dirs.push(dir);
  return SqliteStore.open(dir);
});
