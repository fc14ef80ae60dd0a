// `npm run bench`: starts the mock upstream and Munja as their own processes, runs every scenario
// with autocannon for a bounded time, and writes bench/REPORT.md. Settings (env): BENCH_SECONDS
// (default 5), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (50).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadOptions } from './load.ts';
import { stopAll, tryCommand } from './processes.ts';
import { clockTicksPerSecond, CpuMeter, describeMachine, machineBusyOver, rssBytes } from './proc-stats.ts';
import { mainTable, problems, ratioTable, renderReport, resourceTable, type ScenarioResult } from './report.ts';
import { allScenarios, type Scenario, type Targets } from './scenarios/index.ts';
import { type Stack, startStack } from './stack.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORT_PATH = join(ROOT, 'bench/REPORT.md');
// Lets pino's asynchronous writes and the requests cut off at the end of a run reach the log.
const SETTLE_MS = 300;

function setting(name: string, fallback: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) throw new Error(`${name} must be an integer from 0 to ${max}`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `abc1234`, plus what differs from it in tracked files (the report itself, rewritten by every run, does not count). */
async function commitDescription(): Promise<string> {
  const commit = (await tryCommand('git', ['rev-parse', '--short', 'HEAD'], ROOT)) ?? 'unknown';
  // --no-optional-locks: a bench must not write the index while someone else works in the tree.
  const status = await tryCommand('git', ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=no'], ROOT);
  const changed = (status ?? '').split('\n').map((line) => line.trim().replace(/^\S+\s+/, '')).filter((path) => path !== '' && path !== 'bench/REPORT.md');
  if (changed.some((path) => !path.startsWith('bench/'))) return `${commit} (dirty)`;
  return changed.length > 0 ? `${commit} (with uncommitted changes in bench/)` : commit;
}

/** Sends the scenario's request once and checks the whole response. */
async function checkOnce(scenario: Scenario, targets: Targets): Promise<{ status: number; problem: string | undefined }> {
  const request = scenario.request(targets);
  try {
    const response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body ?? null });
    const body = await response.text();
    if (response.status !== scenario.expectStatus) return { status: response.status, problem: `status ${response.status}: ${body.slice(0, 200)}` };
    return { status: response.status, problem: scenario.check(body) };
  } catch (error) {
    return { status: 0, problem: `request failed: ${(error as Error).message}` };
  }
}

interface Meter {
  readonly ticksPerSecond: number;
  readonly cores: number;
}

async function runScenario(scenario: Scenario, stack: Stack, targets: Targets, options: LoadOptions & { warmupSeconds: number }, meter: Meter): Promise<ScenarioResult> {
  const { ticksPerSecond, cores } = meter;
  const check = await checkOnce(scenario, targets);
  const request = scenario.request(targets);
  if (options.warmupSeconds > 0) await runLoad(request, { ...options, seconds: options.warmupSeconds });
  await sleep(SETTLE_MS);
  stack.munjaLog.clear();

  const cpu = new CpuMeter(ticksPerSecond, [stack.munja.pid, stack.mock.pid]);
  cpu.start();
  const load = await runLoad(request, options);
  const { perPid, selfSeconds, machineBusy } = cpu.read();
  const munjaRssBytes = rssBytes(stack.munja.pid);

  await sleep(SETTLE_MS);
  const munjaLog = stack.munjaLog.tally();
  stack.munjaLog.clear();
  return {
    scenario,
    checkStatus: check.status,
    checkProblem: check.problem,
    load,
    cpuSeconds: {
      munja: perPid[0]!,
      mock: perPid[1]!,
      loader: selfSeconds,
      unattributed: Math.max(0, machineBusy * cores * load.seconds - perPid[0]! - perPid[1]! - selfSeconds),
    },
    machineBusy,
    munjaRssBytes,
    munjaLog,
  };
}

async function main(): Promise<void> {
  const began = performance.now();
  const options = {
    seconds: Math.max(1, setting('BENCH_SECONDS', 5, 600)),
    warmupSeconds: setting('BENCH_WARMUP_SECONDS', 1, 600),
    connections: Math.max(1, setting('BENCH_CONNECTIONS', 50, 10_000)),
  };
  const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-'));
  let cleaning: Promise<void> | undefined;
  const cleanUp = () => (cleaning ??= (async () => {
    await stopAll();
    rmSync(tempDir, { recursive: true, force: true });
  })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}: stopping the processes it started\n`);
      void cleanUp().finally(() => process.exit(130));
    });
  }

  try {
    // Other work on the machine skews every figure: measure it before starting anything (git included).
    const backgroundBusy = await machineBusyOver(1_000);
    const [ticksPerSecond, commit] = await Promise.all([clockTicksPerSecond(), commitDescription()]);
    const machine = describeMachine();
    const meter = { ticksPerSecond, cores: machine.cores };
    const stack = await startStack(tempDir);
    const targets: Targets = { direct: `http://127.0.0.1:${stack.mockPort}`, munja: `http://127.0.0.1:${stack.munjaPort}`, key: stack.key };
    const munjaStartRssBytes = rssBytes(stack.munja.pid);
    process.stdout.write(`bench: mock upstream pid ${stack.mock.pid} port ${stack.mockPort}, munja pid ${stack.munja.pid} port ${stack.munjaPort}\n`);

    const results: ScenarioResult[] = [];
    for (const scenario of allScenarios()) {
      process.stdout.write(`bench: ${scenario.id} (${options.warmupSeconds} s warm-up + ${options.seconds} s) … `);
      const result = await runScenario(scenario, stack, targets, options, meter);
      results.push(result);
      process.stdout.write(`${Math.round(result.load.requestsPerSecond)} req/s${result.checkProblem === undefined ? '' : `, CHECK FAILED: ${result.checkProblem}`}\n`);
    }

    const stops = await stopAll();
    const info = {
      date: new Date().toISOString(),
      machine,
      node: process.version,
      commit,
      ...options,
      munjaStartRssBytes,
      backgroundBusy,
      wallSeconds: (performance.now() - began) / 1000,
      stops,
    };
    writeFileSync(REPORT_PATH, renderReport(results, info));
    const found = problems(results, info);
    process.stdout.write(`\n${mainTable(results)}\n\n${ratioTable(results)}\n\n${resourceTable(results)}\n\n`);
    process.stdout.write(`${found.length === 0 ? 'bench: no problems seen' : `bench: problems seen:\n${found.join('\n')}`}\nbench: wrote ${REPORT_PATH}\n`);
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
