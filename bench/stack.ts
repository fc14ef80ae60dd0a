// The system under test, each part its own process: the mock upstream and Munja (with a fresh
// data dir, a key made by the CLI, and a config whose limits never throttle).
import { closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MunjaLog } from './munja-log.ts';
import { firstLine, runNode, type Started, startNode } from './processes.ts';
import { LOCAL_MODEL, RELAY_MODEL, UPSTREAM_MODEL } from './scenarios/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MUNJA_CLI = join(ROOT, 'src/cli/munja.ts');
const MOCK_CLI = join(ROOT, 'test/helpers/mock-upstream-cli.ts');
const START_TIMEOUT_MS = 20_000;

export interface Stack {
  readonly mock: Started;
  readonly mockPort: number;
  readonly munja: Started;
  readonly munjaPort: number;
  readonly munjaLog: MunjaLog;
  readonly key: string;
}

function munjaConfig(mockPort: number): object {
  return {
    // A short grace: the bench stops Munja when no request is in flight.
    server: { shutdownGraceMs: 2_000 },
    // Never the limiter: one key carries all the load. The concurrency cap (default 64 in flight
    // per key) stays on, as in production, but far above any BENCH_CONNECTIONS.
    limits: { rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 1_000_000 },
    models: {
      [LOCAL_MODEL]: { local: { tokensPerSecond: 0, timeToFirstTokenMs: 0 } },
      [RELAY_MODEL]: { upstreams: [{ baseUrl: `http://127.0.0.1:${mockPort}/v1`, model: UPSTREAM_MODEL, maxConnections: 64 }] },
    },
  };
}

export async function startStack(tempDir: string): Promise<Stack> {
  const dataDir = join(tempDir, 'data');
  const env = { ...process.env, MUNJA_DATA: dataDir, LOG_LEVEL: 'info' };

  const created = JSON.parse(await runNode([MUNJA_CLI, 'keys', 'create', '--account', 'bench@example.com', '--json'], env)) as { key?: unknown };
  if (typeof created.key !== 'string') throw new Error('munja keys create --json printed no key');

  const mock = startNode('mock upstream', [MOCK_CLI, '--port', '0']);
  const mockPort = await firstLine(mock, (line) => portOf(line), START_TIMEOUT_MS);

  const configPath = join(tempDir, 'munja.json');
  writeFileSync(configPath, JSON.stringify(munjaConfig(mockPort), null, 2));
  const munjaLog = new MunjaLog(join(tempDir, 'munja.log'));
  const logFd = munjaLog.openForChild();
  let munja: Started;
  try {
    munja = startNode('munja', [MUNJA_CLI, 'serve'], {
      env: { ...env, MUNJA_CONFIG: configPath, PORT: '0', HOST: '127.0.0.1', MUNJA_METRICS_PORT: '0' },
      stdout: logFd,
    });
  } finally {
    closeSync(logFd); // the child has its own copy
  }
  const munjaPort = await waitForReady(munja, munjaLog);
  return { mock, mockPort, munja, munjaPort, munjaLog, key: created.key };
}

function portOf(line: string): number | undefined {
  try {
    const port = (JSON.parse(line) as { port?: unknown }).port;
    return typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Polls the log file for Munja's `"msg":"ready"` line and returns its port. */
async function waitForReady(munja: Started, log: MunjaLog): Promise<number> {
  let exit: number | string | undefined;
  void munja.exited.then((code) => { exit = code; });
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    const port = log.find((line) => (line.includes('"msg":"ready"') ? portOf(line) : undefined));
    if (port !== undefined) return port;
    if (exit !== undefined) throw new Error(`munja exited (${exit}) before it was ready: ${munja.stderrTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`munja was not ready within ${START_TIMEOUT_MS} ms: ${munja.stderrTail()}`);
}
