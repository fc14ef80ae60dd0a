// Fresh processes, side by side: the non-streaming saturation run repeated in rounds, each round
// measuring the mock called directly, nginx, then a newly started floor relay (uWebSockets.js +
// undici, no gateway work), then a newly started Munja, one after the other (the proxies on the
// proxy's CPU). On a virtual machine Munja's CPU per request moves by 1.5× or more between runs
// minutes apart, far more than nginx's, so one run per target makes a ratio of two draws. Rounds
// give the spread, and a ratio taken within each round.
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import { closedLoop, say, warmUp } from './phases.ts';
import { stop, type StopOutcome } from './processes.ts';
import { quantileOf } from './samples.ts';
import { chatJson, type Target } from './scenarios/index.ts';
import type { Settings } from './settings.ts';
import { startBareRelay, startMunja } from './stack.ts';
import { floorTarget, munjaTarget } from './targets.ts';

export interface Round {
  readonly direct: ClosedLoopResult;
  readonly nginx: ClosedLoopResult | undefined;
  readonly floor: ClosedLoopResult;
  readonly munja: ClosedLoopResult;
}

export interface RoundsOptions {
  readonly tempDir: string;
  readonly mockPort: number;
  /** The proxy's CPU (`taskset -c`), when pinning works. */
  readonly cpus: string | undefined;
  readonly direct: Target;
  /** nginx, already running (it is one steady process); undefined when it is not installed. */
  readonly nginx: Target | undefined;
}

export async function runRounds(settings: Settings, options: RoundsOptions, context: RunContext, stops: StopOutcome[]): Promise<Round[]> {
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections };
  const rounds: Round[] = [];
  for (let index = 0; index < settings.rounds; index++) {
    say(`bench: round ${index + 1} of ${settings.rounds}\n`);
    const direct = await closedLoop(chatJson, options.direct, measured, context);
    const nginx = options.nginx === undefined ? undefined : await closedLoop(chatJson, options.nginx, measured, context);
    const relay = await startBareRelay(options.mockPort, options.cpus);
    const floor = floorTarget(relay.port, relay.process.pid);
    await warmUp(floor, settings, context);
    const floorRun = await closedLoop(chatJson, floor, measured, context);
    stops.push(await stop(relay.process));
    const munja = await startMunja({ name: `munja-round-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, ...(options.cpus === undefined ? {} : { cpus: options.cpus }) });
    const target = munjaTarget(munja);
    await warmUp(target, settings, context);
    const munjaRun = await closedLoop(chatJson, target, { ...measured, log: munja.log }, context);
    stops.push(await stop(munja.process));
    rounds.push({ direct, nginx, floor: floorRun, munja: munjaRun });
  }
  return rounds;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function spreadOf(values: readonly number[]): Spread | undefined {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return undefined;
  const sorted = Float64Array.from(finite).sort();
  return { median: quantileOf(sorted, 0.5), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Munja's CPU per request over nginx's, one ratio per round that measured both. */
export function munjaToNginx(rounds: readonly Round[]): number[] {
  return rounds.filter((round) => round.nginx !== undefined).map((round) => cpuPerRequestUs(round.munja) / cpuPerRequestUs(round.nginx!));
}

/** Munja's throughput over the direct baseline's, one ratio per round. */
export function munjaToDirect(rounds: readonly Round[]): number[] {
  return rounds.map((round) => round.munja.load.requestsPerSecond / round.direct.load.requestsPerSecond);
}
