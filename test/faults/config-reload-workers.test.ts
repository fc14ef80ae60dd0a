// With MUNJA_WORKERS=2 (on Redis), `munja reload` signals the primary, which checks the config,
// logs and audits the reload once and passes it on: both workers reload, and the primary logs that
// they did. A bad config is refused by the primary alone, with one line; the workers keep theirs.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody } from '../helpers/http.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';
import { killServeProcesses, type ServeProcess, startServeProcess } from '../helpers/serve-process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/munja.ts', import.meta.url));
let redis: TestRedis;
const dir = mkdtempSync(join(tmpdir(), 'munja-reload-workers-'));
const configFile = join(dir, 'munja.json');
// The default 50 ms command deadline can fail a start on a busy test machine.
const BASE = { redis: { commandTimeoutMs: 1_000 } };

beforeAll(async () => {
  redis = await startRedis();
  writeFileSync(configFile, JSON.stringify(BASE));
});
afterAll(async () => {
  killServeProcesses();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A request on a connection of its own, so that the kernel may hand it to either worker. */
function status(port: number, key: string, model: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent: false, headers: {
      authorization: `Bearer ${key}`, 'content-type': 'application/json',
    } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(chatBody({ model, max_tokens: 4 }));
  });
}

function linesWith(server: ServeProcess, text: string): string[] {
  return server.stdout().split('\n').filter((line) => line.includes(text));
}

describe('config reload with workers', () => {
  it('reloads every worker, logs and audits once, and refuses a bad config in the primary', async () => {
    const env = { REDIS_URL: redis.url, MUNJA_WORKERS: '2', MUNJA_DATA: dir, MUNJA_CONFIG: configFile };
    const server = await startServeProcess(env);
    const key = server.firstKey()!;
    const munja = (...args: string[]) => promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    expect(await status(server.port, key, 'extra')).toBe(404);

    writeFileSync(configFile, JSON.stringify({ ...BASE, models: { extra: { local: {} } } }));
    await munja('reload');
    await expect.poll(() => linesWith(server, 'config reload in workers done'), { timeout: 15_000 }).toHaveLength(1);
    expect(linesWith(server, 'config reload in workers done')[0]).toContain('"reloaded":2,"refused":0,"noAnswer":0');
    // The primary's line and one from each worker, each from its own process (a worker's line may
    // reach the shared stdout after its answer reached the primary).
    const reloadedPids = () => new Set(linesWith(server, '"msg":"config reloaded"').map((line) => /"pid":(\d+)/.exec(line)?.[1])).size;
    await expect.poll(reloadedPids).toBe(3);
    const statuses = await Promise.all(Array.from({ length: 12 }, () => status(server.port, key, 'extra')));
    expect(statuses.every((code) => code === 200)).toBe(true);

    writeFileSync(configFile, '{"models": ');
    server.child.kill('SIGHUP');
    await expect.poll(() => linesWith(server, 'config reload refused'), { timeout: 15_000 }).toHaveLength(1);
    writeFileSync(configFile, JSON.stringify(BASE));
    server.child.kill('SIGHUP');
    await expect.poll(() => linesWith(server, 'config reload in workers done'), { timeout: 15_000 }).toHaveLength(2);
    // The refusal was the primary's only: no worker was asked to read the bad file.
    expect(linesWith(server, 'config reload refused')).toHaveLength(1);
    expect(await status(server.port, key, 'extra')).toBe(404);

    const configEntries = async () => (JSON.parse((await munja('audit', '--json')).stdout) as { action: string }[])
      .map((entry) => entry.action).filter((action) => action.startsWith('config.'));
    // Newest first; the primary writes each entry just after its log line.
    await expect.poll(configEntries).toEqual(['config.reloaded', 'config.reload_refused', 'config.reloaded']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
