// One closed-loop scenario against one target: the checked response, a warm-up, then the measured
// load with the target's CPU (all its processes and threads) and memory watched meanwhile.
import { type LoadResult, type LoadTool, runLoad } from './load.ts';
import type { MunjaLog, LogTally } from './munja-log.ts';
import { ResourceWatch, type Usage } from './resource-watch.ts';
import type { Scenario, Target } from './scenarios/index.ts';

export interface RunContext {
  readonly tool: LoadTool;
  readonly tempDir: string;
  readonly ticksPerSecond: number;
  /** Where the load generator runs (`taskset -c`), when pinning works. */
  readonly loaderCpus: string | undefined;
}

export interface ClosedLoopOptions {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** Munja's request log, tallied for the measured run. */
  readonly log?: MunjaLog;
}

export interface ClosedLoopResult {
  readonly scenario: Scenario;
  readonly target: Target;
  readonly connections: number;
  /** The single checked response: its status and the problem found, if any. */
  readonly checkStatus: number;
  readonly checkProblem: string | undefined;
  readonly load: LoadResult;
  readonly usage: Usage;
  readonly log: LogTally | undefined;
}

// Lets pino's asynchronous writes and the requests cut off at the end of a run reach the log.
const SETTLE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the scenario's request once and checks the whole response. */
export async function checkOnce(scenario: Scenario, target: Target): Promise<{ status: number; problem: string | undefined }> {
  const request = scenario.request(target);
  const send = () => fetch(request.url, { method: request.method, headers: request.headers, body: request.body ?? null, signal: AbortSignal.timeout(15_000) });
  try {
    if (scenario.prime === true) await (await send()).arrayBuffer();
    const response = await send();
    const body = await response.text();
    if (response.status !== scenario.expectStatus) return { status: response.status, problem: `status ${response.status}: ${body.slice(0, 200)}` };
    return { status: response.status, problem: scenario.check(body, target) };
  } catch (error) {
    return { status: 0, problem: `request failed: ${(error as Error).message}` };
  }
}

export async function runClosedLoop(scenario: Scenario, target: Target, options: ClosedLoopOptions, context: RunContext): Promise<ClosedLoopResult> {
  const check = await checkOnce(scenario, target);
  const request = scenario.request(target);
  const load = { connections: options.connections, expectStatus: scenario.expectStatus, tempDir: context.tempDir, ...(context.loaderCpus === undefined ? {} : { cpus: context.loaderCpus }) };
  if (options.warmupSeconds > 0) await runLoad(context.tool, request, { ...load, seconds: options.warmupSeconds });
  await sleep(SETTLE_MS);
  options.log?.clear();

  const watch = new ResourceWatch(context.ticksPerSecond, target.pids);
  watch.start();
  const result = await runLoad(context.tool, request, { ...load, seconds: options.seconds });
  const usage = watch.stop();

  let log: LogTally | undefined;
  if (options.log !== undefined) {
    await sleep(SETTLE_MS);
    log = options.log.tally();
    options.log.clear();
  }
  return { scenario, target, connections: options.connections, checkStatus: check.status, checkProblem: check.problem, load: result, usage, log };
}

/** Proxy CPU per response in µs (NaN for `direct`, which has no proxy). */
export function cpuPerRequestUs(result: ClosedLoopResult): number {
  if (result.target.pids.length === 0 || result.load.responses === 0) return Number.NaN;
  return (result.usage.cpuSeconds * 1e6) / result.load.responses;
}
