// Three gateway processes sharing one Redis behave as one service: revocation on every instance
// within a second, and a frozen or killed Redis that delays nothing past the ceiling and is
// recovered from without a restart. (Exact admission: fleet-limits.test.ts.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REDIS } from '../../src/config/default-config.ts';
import { chatBody } from '../helpers/http.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, type ServeProcess, startServeProcess } from '../helpers/serve-process.ts';

let redis: TestRedis;
let instances: ServeProcess[];
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'munja-multi-'));

function cli(...args: string[]): any {
  return JSON.parse(execFileSync(process.execPath, ['src/cli/munja.ts', ...args, '--json'], { env: { ...process.env, ...env } }).toString());
}

function chat(instance: ServeProcess, key: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${instance.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ max_tokens: 8 }),
  });
}

/** Each instance's status for a chat with `key`. */
function statusesFor(key: string): Promise<number[]> {
  return Promise.all(instances.map(async (instance) => (await chat(instance, key)).status));
}

async function readiness(instance: ServeProcess): Promise<unknown> {
  return (await fetch(`http://127.0.0.1:${instance.port}/readyz`)).json();
}

// A revocation or a suspension reaches every instance within a second.
const WITHIN_1S = { timeout: 1_000, interval: 100 };

beforeAll(async () => {
  // Persistent (AOF), as docs/operations.md asks of production: keys survive the kill in the last test.
  redis = await startRedis({ appendOnlyDir: dir });
  const config = join(dir, 'munja.json');
  writeFileSync(config, JSON.stringify({ engine: { threads: 1 }, models: { fast: { local: {} } } }));
  env = { REDIS_URL: redis.url, MUNJA_CONFIG: config, MUNJA_WORKERS: '1', MUNJA_DATA: dir };
  instances = [];
  for (let i = 0; i < 3; i++) instances.push(await startServeProcess(env));
}, 60_000);

afterAll(async () => {
  for (const instance of instances) instance.child.kill('SIGTERM');
  await Promise.all(instances.map((instance) => instance.exited));
  killServeProcesses();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('three instances on one Redis', () => {
  it('see a revocation and a suspension on every instance within a second', async () => {
    const created = cli('keys', 'create', '--account', 'revoke@example.com');
    for (const instance of instances) expect((await chat(instance, created.key)).status).toBe(200);
    cli('keys', 'revoke', created.id);
    await expect.poll(() => statusesFor(created.key), WITHIN_1S).toEqual([401, 401, 401]);

    const other = cli('keys', 'create', '--account', 'suspend@example.com');
    for (const instance of instances) expect((await chat(instance, other.key)).status).toBe(200);
    cli('accounts', 'suspend', 'suspend@example.com');
    await expect.poll(() => statusesFor(other.key), WITHIN_1S).toEqual([403, 403, 403]);
  });

  it('keep answering while Redis is frozen, report it on /readyz, and recover by themselves', async () => {
    const { key } = cli('keys', 'create', '--account', 'outage@example.com');
    for (const instance of instances) expect((await chat(instance, key)).status).toBe(200); // cached now
    redis.freeze();
    try {
      const started = performance.now();
      const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(instances[i % 3]!, key).then((response) => response.status)));
      expect(performance.now() - started).toBeLessThan(2.5 * DEFAULT_REDIS.commandTimeoutMs); // nothing waits past the ceiling
      expect(statuses.every((status) => status === 200)).toBe(true);
      await expect.poll(() => readiness(instances[0]!)).toEqual({ status: 'ready', redis: 'down' });
    } finally {
      redis.thaw();
    }
    await expect.poll(() => readiness(instances[0]!)).toEqual({ status: 'ready', redis: 'up' });
    const fresh = cli('keys', 'create', '--account', 'after@example.com');
    await expect.poll(() => statusesFor(fresh.key)).toEqual([200, 200, 200]);
    for (const instance of instances) expect(instance.child.exitCode).toBeNull();
  }, 30_000);

  it('survive Redis being killed mid-load and recover when it restarts', async () => {
    const { key } = cli('keys', 'create', '--account', 'killed@example.com');
    for (const instance of instances) expect((await chat(instance, key)).status).toBe(200);
    let answered = 0;
    const load = Array.from({ length: 60 }, (_, i) => sleep(i * 20)
      .then(() => chat(instances[i % 3]!, key))
      .then((response) => { answered++; return response.status; }));
    await expect.poll(() => answered).toBeGreaterThanOrEqual(10); // mid-load
    await redis.kill();
    const statuses = await Promise.all(load);
    // A key checked before the outage keeps working; nothing hangs, nothing fails.
    expect(statuses.every((status) => status === 200)).toBe(true);
    await redis.restart();
    // Recovered by themselves: a key none of them has seen is looked up in Redis again.
    const fresh = cli('keys', 'create', '--account', 'after-kill@example.com');
    await expect.poll(() => statusesFor(fresh.key)).toEqual([200, 200, 200]);
    for (const instance of instances) {
      expect(instance.child.exitCode).toBeNull();
      expect((await chat(instance, key)).status).toBe(200);
    }
  }, 30_000);
});
