// The engine-fleet scenario: for each routing strategy, fresh simulated engines and a fresh Munja,
// the same planned workload, every request's TTFT and tokens; then engine-aware routing once more
// without the heavy tenant, the baseline of the light tenants' fairness target, and round-robin
// without it (what routing gains where the heavy tenant's floor is not under the p99), and the
// partitioned run of the fairness analysis. The tenants' keys
// are made once (one account each) and every run's Munja gets a copy of that data directory.
import { closeSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { say } from '../phases.ts';
import { MunjaLog } from '../munja-log.ts';
import { firstLine, runNode, type Started, startNode, stop, type StopOutcome } from '../processes.ts';
import { MUNJA_NODE_FLAGS, waitForReady } from '../stack.ts';
import { VLLM_LIKE } from './engine-model.ts';
import { drive, type RequestResult } from './driver.ts';
import { gatewayConfig, PARTITIONED, STRATEGIES, type Strategy } from './strategies.ts';
import { LIGHT_TENANTS, planWorkload, withoutHeavy, type WorkloadPlan } from './workload.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MUNJA_CLI = join(ROOT, 'src/cli/munja.ts');
const ENGINE_SERVER = join(ROOT, 'bench/fleet/engine-server.ts');
export const ENGINES = 4;
const START_TIMEOUT_MS = 30_000;

export interface StrategyRun {
  readonly name: string;
  readonly label: string;
  readonly heavy: boolean;
  readonly results: readonly RequestResult[];
  /** Prompt tokens the engines were asked to prefill, and those found in their prefix caches. */
  readonly prefix: { readonly queried: number; readonly hits: number };
  /** The first line Munja logged above info during the run, if any. */
  readonly problem?: string;
}

export interface EngineFleetResults {
  readonly engines: number;
  readonly plan: Omit<WorkloadPlan, 'sessions' | 'heavy' | 'system'> & { readonly sessionCount: number; readonly heavyCount: number };
  readonly runs: readonly StrategyRun[];
  readonly seconds: number;
}

interface Keys {
  readonly light: readonly string[];
  readonly heavy: string;
}

async function createKey(env: NodeJS.ProcessEnv, account: string): Promise<string> {
  const created = JSON.parse(await runNode([MUNJA_CLI, 'keys', 'create', '--account', account, '--json'], env)) as { key?: unknown };
  if (typeof created.key !== 'string') throw new Error('munja keys create --json printed no key');
  return created.key;
}

function counter(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
}

async function prefixCounters(ports: readonly number[]): Promise<StrategyRun['prefix']> {
  let queried = 0;
  let hits = 0;
  for (const port of ports) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    queried += counter(text, 'vllm:prefix_cache_queries_total');
    hits += counter(text, 'vllm:prefix_cache_hits_total');
  }
  return { queried, hits };
}

function writeConfig(dir: string, strategy: Strategy, ports: readonly number[]): string {
  const path = join(dir, 'munja.json');
  writeFileSync(path, JSON.stringify(gatewayConfig(strategy, ports), null, 2));
  return path;
}

async function startGateway(dir: string, configPath: string, name: string, pinned: { cpus?: string }): Promise<{ process: Started; port: number; log: MunjaLog }> {
  const log = new MunjaLog(join(dir, 'munja.log'));
  const logFd = log.openForChild();
  const env = { ...process.env, MUNJA_DATA: join(dir, 'data'), MUNJA_CONFIG: configPath, LOG_LEVEL: 'info', PORT: '0', HOST: '127.0.0.1', MUNJA_METRICS_PORT: '0', MUNJA_WORKERS: '1' };
  let munja: Started;
  try {
    munja = startNode(name, [...MUNJA_NODE_FLAGS, MUNJA_CLI, 'serve'], { env, stdout: logFd, ...pinned });
  } finally {
    closeSync(logFd); // the child has its own copy
  }
  return { process: munja, port: await waitForReady(munja, log), log };
}

const portsOf = (line: string) => {
  try {
    const ports = (JSON.parse(line) as { ports?: unknown }).ports;
    return Array.isArray(ports) && ports.every((port) => typeof port === 'number') ? (ports as number[]) : undefined;
  } catch {
    return undefined;
  }
};

/** Keys for the light tenants and the heavy one, made once in a data directory each run copies. */
async function makeKeys(tempDir: string): Promise<{ keys: Keys; dataDir: string }> {
  const dir = join(tempDir, 'keys');
  mkdirSync(dir, { recursive: true });
  // The CLI reads the config for its model ids only: no engine needs to listen yet.
  const configPath = writeConfig(dir, STRATEGIES[0]!, Array.from({ length: ENGINES }, () => 1));
  const env = { ...process.env, MUNJA_DATA: join(dir, 'data'), MUNJA_CONFIG: configPath };
  const light: string[] = [];
  for (let tenant = 0; tenant < LIGHT_TENANTS; tenant++) light.push(await createKey(env, `light-${tenant + 1}@example.com`));
  const heavy = await createKey(env, 'heavy@example.com');
  return { keys: { light, heavy }, dataDir: join(dir, 'data') };
}

async function runOne(strategy: Strategy, label: string, plan: WorkloadPlan, keys: Keys, dataDir: string, options: EngineFleetOptions, stops: StopOutcome[]): Promise<StrategyRun> {
  const { tempDir } = options;
  const pinned = options.cpus === undefined ? {} : { cpus: options.cpus };
  const name = `fleet-${label.replaceAll(/[^a-z]+/g, '-')}`;
  const dir = join(tempDir, name);
  mkdirSync(dir, { recursive: true });
  cpSync(dataDir, join(dir, 'data'), { recursive: true });
  const engines = startNode(`${name} engines`, [ENGINE_SERVER, '--engines', String(ENGINES)], pinned);
  try {
    const ports = await firstLine(engines, portsOf, START_TIMEOUT_MS);
    const gateway = await startGateway(dir, writeConfig(dir, strategy, ports), `${name} munja`, pinned);
    try {
      say(`bench: engine fleet, ${label}: ${plan.sessions.length} sessions, ${plan.heavy.length} heavy requests … `);
      const results = await drive(plan, {
        origin: `http://127.0.0.1:${gateway.port}`,
        lightKeys: keys.light,
        heavyKey: keys.heavy,
        modelFor: (n, heavy) => strategy.modelFor(n, ENGINES, heavy),
      });
      const prefix = await prefixCounters(ports);
      const problem = gateway.log.tally().firstProblem;
      const failed = results.filter((result) => result.status !== 200 || result.tokens === 0).length;
      say(`${results.length} requests${failed > 0 ? `, ${failed} failed` : ''}\n`);
      return { name: strategy.name, label, heavy: plan.heavy.length > 0, results, prefix, ...(problem === undefined ? {} : { problem }) };
    } finally {
      stops.push(await stop(gateway.process));
    }
  } finally {
    stops.push(await stop(engines));
  }
}

export interface EngineFleetOptions {
  readonly tempDir: string;
  /** Seconds of arrivals per strategy. */
  readonly seconds: number;
  /** CPUs for the engines and Munja (`taskset -c`); unpinned when absent. */
  readonly cpus?: string | undefined;
}

export async function runEngineFleet(options: EngineFleetOptions, stops: StopOutcome[]): Promise<EngineFleetResults> {
  const began = performance.now();
  const plan = planWorkload(VLLM_LIKE, ENGINES, options.seconds);
  const { keys, dataDir } = await makeKeys(options.tempDir);
  const runs: StrategyRun[] = [];
  for (const strategy of STRATEGIES) runs.push(await runOne(strategy, strategy.label, plan, keys, dataDir, options, stops));
  const engineAware = STRATEGIES.find((strategy) => strategy.name === 'engine-aware')!;
  runs.push(await runOne(engineAware, 'engine-aware, no heavy tenant', withoutHeavy(plan), keys, dataDir, options, stops));
  runs.push(await runOne(STRATEGIES[0]!, 'round-robin, no heavy tenant', withoutHeavy(plan), keys, dataDir, options, stops));
  runs.push(await runOne(PARTITIONED, PARTITIONED.label, plan, keys, dataDir, options, stops));
  const { sessions, heavy, system: _system, ...figures } = plan;
  return { engines: ENGINES, plan: { ...figures, sessionCount: sessions.length, heavyCount: heavy.length }, runs, seconds: (performance.now() - began) / 1000 };
}
