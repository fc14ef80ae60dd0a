// Every start-up failure stops the whole process: a non-zero exit, one line on stderr saying what
// to change, one JSON "start failed" line on stdout, and nothing left listening.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/readiness-balancer.ts';
import { killServeProcesses, spawnServe, startServeProcess } from '../helpers/serve-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-start-failures-'));
const holders: Server[] = [];
afterEach(() => {
  killServeProcesses();
  for (const server of holders.splice(0)) server.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome { code: number | null; stdout: string; stderr: string }

async function failedStart(env: Record<string, string>): Promise<Outcome> {
  const child = spawnServe(env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const [code] = await once(child, 'exit') as [number | null];
  return { code, stdout, stderr };
}

function expectOneClearLine(outcome: Outcome, message: RegExp): void {
  expect(outcome.code, outcome.stderr).toBe(1);
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^munja: /);
  expect(lines[0]).toMatch(message);
  const logs = outcome.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { msg: string; level: number });
  expect(logs.at(-1)).toMatchObject({ msg: 'start failed', level: 60 });
  expect(outcome.stdout).not.toContain('"msg":"ready"');
}

async function holdPort(): Promise<number> {
  const server = createServer();
  holders.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

describe('a start that cannot succeed', () => {
  it('stops when the metrics port is taken, instead of serving the API without it', async () => {
    const taken = await holdPort();
    expectOneClearLine(await failedStart({ MUNJA_METRICS_PORT: String(taken) }), new RegExp(`MUNJA_METRICS_PORT: 127\\.0\\.0\\.1:${taken} is already in use .*for a second instance set MUNJA_METRICS_PORT=0 \\(a free port\\) or MUNJA_METRICS_PORT=off`));
  });

  it('stops when another Munja already serves the port, rather than sharing it', async () => {
    const port = await freePort();
    const first = await startServeProcess({ PORT: String(port) });
    expectOneClearLine(await failedStart({ PORT: String(port) }), new RegExp(`PORT: 127\\.0\\.0\\.1:${port} is already in use`));
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('stops when another program holds the port', async () => {
    const taken = await holdPort();
    expectOneClearLine(await failedStart({ PORT: String(taken) }), /PORT: .* is already in use/);
  });

  it('stops when HOST is not an address of this machine', async () => {
    expectOneClearLine(await failedStart({ HOST: '192.0.2.1' }), /HOST: 192\.0\.2\.1 is not an address of this machine/);
  });

  it('stops when the data dir cannot be used', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expectOneClearLine(await failedStart({ MUNJA_DATA: join(file, 'data') }), /MUNJA_DATA: cannot use .*a-file\/data as the data dir/);
  });

  it('stops on a bad setting or config file, naming it', async () => {
    expectOneClearLine(await failedStart({ PORT: 'eighty' }), /invalid setting: PORT/);
    const config = join(dir, 'bad.json');
    writeFileSync(config, '{"server": {');
    expectOneClearLine(await failedStart({ MUNJA_CONFIG: config }), /invalid setting: MUNJA_CONFIG: .*bad\.json is not valid JSON/);
  });

  it('stops when the TLS files are missing', async () => {
    expectOneClearLine(
      await failedStart({ MUNJA_TLS_CERT: join(dir, 'missing-cert.pem'), MUNJA_TLS_KEY: join(dir, 'missing-key.pem') }),
      /MUNJA_TLS_CERT: cannot read .*missing-cert\.pem/,
    );
  });

  it('stops when Redis cannot be reached at start, with the default workers and with one', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const [primary, single] = await Promise.all([
      failedStart({ REDIS_URL: url }),
      failedStart({ REDIS_URL: url, MUNJA_WORKERS: '1' }),
    ]);
    expectOneClearLine(primary, /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+/);
    expectOneClearLine(single, /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+/);
  }, 60_000);
});
