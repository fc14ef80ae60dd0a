// The processes under test that are ours: the bench's mock upstream and Munja, each its own
// process, pinned where run.ts says. Munja gets a fresh data dir (or a private Redis), keys made
// by its own CLI, and a config whose limits never throttle the bench key.
import { closeSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allocationProbeEnv } from './allocation/measure.ts';
import { MOCK_MODELS, MUNJA_MODELS } from './mock/models.ts';
import { MunjaLog } from './munja-log.ts';
import { firstLine, runNode, type Started, startNode } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const munjaCli = (checkout: string) => join(checkout, 'src/cli/munja.ts');
const MOCK_SERVER = join(ROOT, 'bench/mock/fast-upstream.ts');
const BARE_RELAY = join(ROOT, 'bench/floor/bare-relay.ts');
const HEAP_PROBE = join(ROOT, 'bench/heap-probe.ts');
const START_TIMEOUT_MS = 30_000;
/** Munja runs as `npm start` runs it (package.json). */
export const MUNJA_NODE_FLAGS = ['--max-semi-space-size=8'];
export const LOCAL_MODEL = 'fast';

/** A server of the bench's own (the mock, the floor relay): its process and the port it listens on. */
export interface BenchServer {
  readonly process: Started;
  readonly port: number;
}

async function startServer(name: string, args: readonly string[], cpus: string | undefined, env?: NodeJS.ProcessEnv): Promise<BenchServer> {
  const process = startNode(name, args, { ...(cpus === undefined ? {} : { cpus }), ...(env === undefined ? {} : { env }) });
  const port = await firstLine(process, portOf, START_TIMEOUT_MS);
  return { process, port };
}

export function startMock(cpus: string | undefined): Promise<BenchServer> {
  return startServer('mock upstream', [MOCK_SERVER, '--port', '0'], cpus);
}

/**
 * The stack's floor (bench/floor/bare-relay.ts) in front of the mock; `allocationFile` loads the
 * allocation probe, `nodeOptions` are added to its NODE_OPTIONS (the profiler's flags).
 */
export function startBareRelay(mockPort: number, cpus: string | undefined, allocationFile?: string, nodeOptions?: string): Promise<BenchServer> {
  let env = allocationFile === undefined ? undefined : allocationProbeEnv(allocationFile);
  if (nodeOptions !== undefined) {
    const base = env ?? process.env;
    env = { ...base, NODE_OPTIONS: `${base.NODE_OPTIONS ?? ''} ${nodeOptions}`.trim() };
  }
  return startServer('bare relay', [BARE_RELAY, '--upstream', `http://127.0.0.1:${mockPort}`, '--port', '0'], cpus, env);
}

export interface MunjaOptions {
  readonly name: string;
  readonly tempDir: string;
  readonly mockPort: number;
  readonly cpus?: string;
  /** redis://… : the Redis store and limiter instead of the embedded store and memory limiter. */
  readonly redisUrl?: string;
  readonly workers?: number;
  /** Write process.memoryUsage() to this file every second (for the soak). */
  readonly heapFile?: string;
  /** Load the allocation probe (bench/allocation/probe.ts), which writes its readings to this file. */
  readonly allocationFile?: string;
  /** Root of the Munja checkout to run (another commit's, for a baseline); this one by default. */
  readonly checkout?: string;
  /** More keys like `key`, to spread many streams over (Munja caps what one key has in flight). */
  readonly extraKeys?: number;
  /**
   * Also serve LOCAL_MODEL from the built-in engine. Off by default: a gateway in front of model
   * servers starts no engine thread and no tokenizer, and that is the shape compared with the peers.
   */
  readonly localModel?: boolean;
  /** More settings for `munja serve` (e.g. OTEL_* for the tracing-cost runs). */
  readonly env?: Readonly<Record<string, string>>;
  /** Price the relayed models and give every key a monthly budget that never binds (the budgets-on runs). */
  readonly budgets?: boolean;
}

export interface Munja {
  readonly process: Started;
  readonly port: number;
  readonly log: MunjaLog;
  /** A key that may use every model, with limits that never bind. */
  readonly key: string;
  /** A key limited to 1 request per minute (the 429 path). */
  readonly tinyKey: string;
  readonly extraKeys: readonly string[];
}

/**
 * Whether the checkout's config file has `defaultModels`. Without it, listed models replace the
 * default ones; with it they are merged unless it is false, and an older checkout refuses the setting.
 */
function knowsDefaultModels(checkout: string): boolean {
  return readFileSync(join(checkout, 'src/config/config-schema.ts'), 'utf8').includes('defaultModels');
}

function munjaConfig(mockPort: number, localModel: boolean, checkout: string, budgets: boolean): object {
  const baseUrl = `http://127.0.0.1:${mockPort}/v1`;
  const price = budgets ? { price: { input: 0.15, output: 0.6 } } : {};
  const relay = (kind: keyof typeof MOCK_MODELS, maxConnections: number) => ({ upstreams: [{ baseUrl, model: MOCK_MODELS[kind], maxConnections }], ...price });
  return {
    // Only the bench's models: the default ones would start the local engine's threads.
    ...(knowsDefaultModels(checkout) ? { defaultModels: false } : {}),
    // A short grace: the bench stops Munja when no request is in flight. Every bench client comes
    // from 127.0.0.1, so the per-address cap is raised above the ~10,000 streams held at once.
    // The bench's keys all belong to one account (with one shared Redis, every run's): past the
    // default cap of 20 keys per account.
    server: { shutdownGraceMs: 2_000, maxRequestsPerAddress: 1_000_000, dashboard: { maxKeysPerAccount: 1_000 } },
    // The bench key carries all the load: its limits never bind. The per-key concurrency cap stays on,
    // as in production, but far above any load here (the many-streams scenario holds ~10,000).
    limits: { rpm: 100_000_000, tpm: 2_000_000_000, concurrency: 1_000_000 },
    // Every request reserves and settles, but the budget never refuses one.
    ...(budgets ? { budgets: { key: { amount: 1_000_000_000, period: 'month' } } } : {}),
    models: {
      ...(localModel ? { [LOCAL_MODEL]: { local: { tokensPerSecond: 0, timeToFirstTokenMs: 0 } } } : {}),
      [MUNJA_MODELS.json]: relay('json', 256),
      [MUNJA_MODELS.stamp]: relay('stamp', 64),
      [MUNJA_MODELS.slow]: relay('slow', 12_000),
      [MUNJA_MODELS.soak]: relay('soak', 256),
    },
  };
}

async function createKey(cli: string, env: NodeJS.ProcessEnv, rpm?: number): Promise<string> {
  const args = [cli, 'keys', 'create', '--account', 'bench@example.com', '--json', ...(rpm === undefined ? [] : ['--rpm', String(rpm)])];
  const created = JSON.parse(await runNode(args, env)) as { key?: unknown };
  if (typeof created.key !== 'string') throw new Error('munja keys create --json printed no key');
  return created.key;
}

export async function startMunja(options: MunjaOptions): Promise<Munja> {
  const dir = join(options.tempDir, options.name);
  mkdirSync(dir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, MUNJA_DATA: join(dir, 'data'), LOG_LEVEL: 'info' };
  if (options.redisUrl !== undefined) env.REDIS_URL = options.redisUrl;
  // The CLI reads the key cap from the config, so the config comes first.
  const configPath = join(dir, 'munja.json');
  const checkout = options.checkout ?? ROOT;
  writeFileSync(configPath, JSON.stringify(munjaConfig(options.mockPort, options.localModel === true, checkout, options.budgets === true), null, 2));
  env.MUNJA_CONFIG = configPath;
  const cli = munjaCli(checkout);
  const key = await createKey(cli, env);
  const tinyKey = await createKey(cli, env, 1);
  const extraKeys: string[] = [];
  for (let index = 0; index < (options.extraKeys ?? 0); index++) extraKeys.push(await createKey(cli, env));

  const log = new MunjaLog(join(dir, 'munja.log'));
  const logFd = log.openForChild();
  let serveEnv: NodeJS.ProcessEnv = {
    ...env, MUNJA_CONFIG: configPath, PORT: '0', HOST: '127.0.0.1', MUNJA_METRICS_PORT: '0', MUNJA_WORKERS: String(options.workers ?? 1), ...options.env,
  };
  if (options.heapFile !== undefined) {
    serveEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${HEAP_PROBE}`.trim();
    serveEnv.BENCH_HEAP_FILE = options.heapFile;
  }
  if (options.allocationFile !== undefined) serveEnv = allocationProbeEnv(options.allocationFile, serveEnv);
  let munja: Started;
  try {
    munja = startNode(options.name, [...MUNJA_NODE_FLAGS, cli, 'serve'], { env: serveEnv, stdout: logFd, ...(options.cpus === undefined ? {} : { cpus: options.cpus }) });
  } finally {
    closeSync(logFd); // the child has its own copy
  }
  const port = await waitForReady(munja, log);
  log.clear();
  return { process: munja, port, log, key, tinyKey, extraKeys };
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
export async function waitForReady(munja: Started, log: MunjaLog): Promise<number> {
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
