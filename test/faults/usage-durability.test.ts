// The loss window of usage on a hard kill is what docs/operations.md says: usage is written to the
// store once a second, so what was written survives SIGKILL, and SIGTERM writes everything before
// the process exits. A real `munja serve` process on the embedded store, default settings.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { killServeProcesses, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';

afterEach(killServeProcesses);

async function chat(server: ServeProcess, key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fast', max_tokens: 3, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
}

/** Requests in the store for the data dir's only key, today (read by a connection of its own). */
async function storedRequests(dataDir: string): Promise<number> {
  const store = SqliteStore.open(dataDir);
  try {
    const keys = await store.listKeys();
    const today = new Date().toISOString().slice(0, 10);
    const rows = await store.usageByDay(keys.map((key) => key.id), today, today);
    return rows.reduce((sum, row) => sum + row.requests, 0);
  } finally {
    await store.close();
  }
}

it('keeps through SIGKILL the usage written before it, and writes all of it on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'munja-usage-durability-'));
  const first = await startServeProcess({ MUNJA_DATA: dataDir });
  const key = first.firstKey()!;
  await chat(first, key, 12);
  // The write that follows within a second of the last answer.
  await vi.waitFor(async () => expect(await storedRequests(dataDir)).toBe(12), { timeout: 5_000, interval: 100 });
  first.child.kill('SIGKILL');
  await first.exited;
  expect(await storedRequests(dataDir)).toBe(12);

  const second = await startServeProcess({ MUNJA_DATA: dataDir });
  await chat(second, key, 7);
  // At once, before the next periodic write could have happened for all of them.
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  expect(await storedRequests(dataDir)).toBe(19);
});
