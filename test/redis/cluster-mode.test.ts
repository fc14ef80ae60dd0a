// MUNJA_WORKERS=2: a primary and two workers on one port; a worker killed with SIGKILL is
// replaced while the other keeps serving; SIGTERM drains everything and exits 0.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, startServeProcess } from '../helpers/serve-process.ts';

let redis: TestRedis;
const dir = mkdtempSync(join(tmpdir(), 'munja-cluster-'));

beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => {
  killServeProcesses();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

function workerPids(log: string): number[] {
  return [...log.matchAll(/"workerPid":(\d+),[^\n]*"msg":"worker ready"/g)].map((match) => Number(match[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('cluster mode', () => {
  it('serves from two workers, replaces one killed, and drains on SIGTERM', async () => {
    const env = { REDIS_URL: redis.url, MUNJA_WORKERS: '2', MUNJA_DATA: dir };
    const server = await startServeProcess(env);
    const key = server.firstKey();
    expect(key).toMatch(/^sk_munja_/);
    // PORT=0: the first worker chose the port, the second joined it, and the first-start notice names it.
    expect(server.stderr()).toContain(`http://127.0.0.1:${server.port}`);
    const chat = () => fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody({ max_tokens: 4 }),
    }).then((response) => response.status);

    const first = workerPids(server.stdout());
    expect(first).toHaveLength(2);
    expect((await Promise.all(Array.from({ length: 20 }, chat))).every((status) => status === 200)).toBe(true);

    process.kill(first[0]!, 'SIGKILL');
    await expect.poll(server.stdout).toContain('worker died; restarting it');
    await expect.poll(() => workerPids(server.stdout()), { timeout: 15_000 }).toHaveLength(3); // a replacement worker
    expect((await Promise.all(Array.from({ length: 20 }, chat))).every((status) => status === 200)).toBe(true);

    const workers = workerPids(server.stdout()).filter((pid) => pid !== first[0]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    // The workers drained and exited on their own (a worker killed past the grace logs no "stopped").
    for (const pid of workers) {
      expect(server.stdout()).toMatch(new RegExp(`"pid":${pid},[^\\n]*"drained":true[^\\n]*"msg":"stopped"`));
      expect(alive(pid)).toBe(false);
    }
  }, 60_000);

  it('refuses several workers without Redis', () => {
    let message = '';
    try {
      execFileSync(process.execPath, ['src/cli/munja.ts', 'serve'], { env: { ...process.env, MUNJA_WORKERS: '2', MUNJA_DATA: dir, REDIS_URL: '' }, stdio: 'pipe' });
    } catch (error) {
      message = String((error as { stderr: Buffer }).stderr);
    }
    expect(message).toContain('MUNJA_WORKERS > 1 needs REDIS_URL');
  });
});
