// Fresh processes, side by side: each round measures the mock called directly, nginx, then a newly
// started floor relay (uWebSockets.js + undici, no gateway work), then a newly started Munja, one
// after the other (the proxies on the proxy's CPU), then a newly started Munja serving the local
// engine. The floor relay and Munja each get the non-streaming saturation run, a count of the
// bytes they allocate per request, and a paced run at 1,000 req/s; all three also a saturation
// run of 100-chunk streams (the floor relay sends what each upstream read brought at once, as
// Munja does). On a virtual machine Munja's CPU per request moves by 1.5× or more between runs minutes
// apart, far more than nginx's, so one run per target makes a ratio of two draws. Rounds give the
// spread, and ratios taken within each round.
import { join } from 'node:path';
import { type AllocationResult, measureAllocation } from './allocation/measure.ts';
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import type { MunjaLog } from './munja-log.ts';
import type { PacedResult } from './paced-load.ts';
import { closedLoop, paced, say, warmUp } from './phases.ts';
import { type Started, stop, type StopOutcome } from './processes.ts';
import { chatJson, chatStream, local, messagesJson, messagesStream, responsesJson, responsesStream, type Target } from './scenarios/index.ts';
import type { Settings } from './settings.ts';
import { startBareRelay, startMunja } from './stack.ts';
import { floorTarget, munjaTarget } from './targets.ts';

/** The paced rate of the rounds, the one the added-latency target is set at. */
export const ROUND_RATE = 1_000;
const ALLOCATION_CONNECTIONS = 16;

/** What one fresh process (the floor relay or Munja) gave in one round. */
export interface RoundRun {
  readonly saturated: ClosedLoopResult;
  /** 100-chunk streams at saturation. */
  readonly streams: ClosedLoopResult | undefined;
  readonly allocation: AllocationResult | undefined;
  readonly paced: PacedResult | undefined;
}

/** The same relayed request through Munja's other protocols, on the round's Munja process after its chat runs. */
export interface ProtocolRuns {
  readonly responsesJson: ClosedLoopResult;
  readonly responsesStream: ClosedLoopResult;
  readonly messagesJson: ClosedLoopResult;
  readonly messagesStream: ClosedLoopResult;
}

export interface Round {
  readonly direct: ClosedLoopResult;
  readonly nginx: ClosedLoopResult | undefined;
  readonly nginxStreams: ClosedLoopResult | undefined;
  readonly floor: RoundRun;
  readonly munja: RoundRun;
  /** A `fast` completion on a fresh Munja that serves the local engine (undefined when skipped). */
  readonly local: ClosedLoopResult | undefined;
  /** Undefined when skipped (BENCH_SKIP=protocols). */
  readonly protocols: ProtocolRuns | undefined;
  /** The chat JSON request on a fresh Munja with budgets on (every request reserves and settles); undefined when skipped (BENCH_SKIP=budgets). */
  readonly budgets: ClosedLoopResult | undefined;
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
  const cpus = options.cpus === undefined ? {} : { cpus: options.cpus };
  const rounds: Round[] = [];
  for (let index = 0; index < settings.rounds; index++) {
    say(`bench: round ${index + 1} of ${settings.rounds}\n`);
    const direct = await closedLoop(chatJson, options.direct, measured, context);
    const nginx = options.nginx === undefined ? undefined : await closedLoop(chatJson, options.nginx, measured, context);
    const nginxStreams = options.nginx === undefined ? undefined : await closedLoop(chatStream, options.nginx, measured, context);

    const floorFile = join(options.tempDir, `floor-round-${index + 1}-allocation.json`);
    const relay = await startBareRelay(options.mockPort, options.cpus, floorFile);
    const floor = await measureInRound(floorTarget(relay.port, relay.process.pid), relay.process, floorFile, settings, context);
    stops.push(await stop(relay.process));

    const munjaFile = join(options.tempDir, `munja-round-${index + 1}-allocation.json`);
    const munja = await startMunja({ name: `munja-round-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, allocationFile: munjaFile, ...cpus });
    const munjaRun = await measureInRound(munjaTarget(munja), munja.process, munjaFile, settings, context, munja.log);
    const protocols = settings.skip.has('protocols') ? undefined : await measureProtocols(munjaTarget(munja), measured, munja.log, context);
    stops.push(await stop(munja.process));

    let localRun: ClosedLoopResult | undefined;
    if (!settings.skip.has('local')) {
      const withEngine = await startMunja({ name: `munja-local-round-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, localModel: true, ...cpus });
      // Warmed up on the scenario itself: the relay's warm-up would leave the engine's code cold.
      const warmed = { ...measured, warmupSeconds: settings.targetWarmupSeconds + settings.warmupSeconds, log: withEngine.log };
      localRun = await closedLoop(local, munjaTarget(withEngine, 'munja', `Munja with the local engine, round ${index + 1}`), warmed, context);
      stops.push(await stop(withEngine.process));
    }
    let budgets: ClosedLoopResult | undefined;
    if (!settings.skip.has('budgets')) {
      const withBudgets = await startMunja({ name: `munja-budgets-round-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, budgets: true, ...cpus });
      const target = munjaTarget(withBudgets, 'munja', `Munja with budgets, round ${index + 1}`);
      await warmUp(target, settings, context);
      budgets = await closedLoop(chatJson, target, { ...measured, log: withBudgets.log }, context);
      stops.push(await stop(withBudgets.process));
    }
    rounds.push({ direct, nginx, nginxStreams, floor, munja: munjaRun, local: localRun, protocols, budgets });
  }
  return rounds;
}

/** The Responses and Messages APIs' JSON and stream runs, on a process warmed up by its chat runs; once more warmed on each scenario itself. */
async function measureProtocols(target: Target, measured: { seconds: number; warmupSeconds: number; connections: number }, log: MunjaLog, context: RunContext): Promise<ProtocolRuns> {
  const run = { ...measured, log };
  return {
    responsesJson: await closedLoop(responsesJson, target, run, context),
    responsesStream: await closedLoop(responsesStream, target, run, context),
    messagesJson: await closedLoop(messagesJson, target, run, context),
    messagesStream: await closedLoop(messagesStream, target, run, context),
  };
}

/** Warm-up, the saturation run and one of streams, the allocation count, then the paced run, on one fresh process. */
async function measureInRound(target: Target, server: Started, allocationFile: string, settings: Settings, context: RunContext, log?: MunjaLog): Promise<RoundRun> {
  await warmUp(target, settings, context);
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, ...(log === undefined ? {} : { log }) };
  const saturated = await closedLoop(chatJson, target, measured, context);
  const streams = await closedLoop(chatStream, target, measured, context);
  let allocation: AllocationResult | undefined;
  if (settings.allocationRequests > 0) {
    say(`bench: ${target.name} allocation over ${settings.allocationRequests} requests … `);
    allocation = await measureAllocation(chatJson.request(target), server.pid, allocationFile, { requests: settings.allocationRequests, connections: ALLOCATION_CONNECTIONS });
    say(`${Math.round(allocation.bytesPerRequest).toLocaleString('en-US')} B/request, ${allocation.collections} collections\n`);
  }
  const pacedRun = settings.roundPacedSeconds > 0 ? await paced(target, ROUND_RATE, settings.roundPacedSeconds, context) : undefined;
  return { saturated, streams, allocation, paced: pacedRun };
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and range of the finite values; with `keepInfinite`, of every value but NaN. */
export function spreadOf(values: readonly number[], keepInfinite = false): Spread | undefined {
  const kept = values.filter(keepInfinite ? (value) => !Number.isNaN(value) : Number.isFinite);
  if (kept.length === 0) return undefined;
  const sorted = Float64Array.from(kept).sort();
  // With an even count, the mean of the two middle values: either one alone would lean one way.
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Munja's CPU per request over nginx's, one ratio per round that measured both. */
export function munjaToNginx(rounds: readonly Round[]): number[] {
  return rounds.filter((round) => round.nginx !== undefined).map((round) => cpuPerRequestUs(round.munja.saturated) / cpuPerRequestUs(round.nginx!));
}

/** CPU per 100-chunk stream of one run over another's, one ratio per round (NaN where either was not run). */
function streamRatios(rounds: readonly Round[], over: (round: Round) => ClosedLoopResult | undefined, under: (round: Round) => ClosedLoopResult | undefined): number[] {
  return rounds.map((round) => {
    const [top, bottom] = [over(round), under(round)];
    return top === undefined || bottom === undefined ? Number.NaN : cpuPerRequestUs(top) / cpuPerRequestUs(bottom);
  });
}

/** Munja's CPU per 100-chunk stream over nginx's, one ratio per round. */
export const munjaToNginxStreams = (rounds: readonly Round[]) => streamRatios(rounds, (round) => round.munja.streams, (round) => round.nginxStreams);

/** The floor relay's CPU per 100-chunk stream over nginx's, one ratio per round. */
export const floorToNginxStreams = (rounds: readonly Round[]) => streamRatios(rounds, (round) => round.floor.streams, (round) => round.nginxStreams);

/** Munja's CPU per 100-chunk stream over the floor relay's, one ratio per round. */
export const munjaToFloorStreams = (rounds: readonly Round[]) => streamRatios(rounds, (round) => round.munja.streams, (round) => round.floor.streams);

/** Munja's throughput over the direct baseline's, one ratio per round. */
export function munjaToDirect(rounds: readonly Round[]): number[] {
  return rounds.map((round) => round.munja.saturated.load.requestsPerSecond / round.direct.load.requestsPerSecond);
}

/** Munja's CPU per request over the floor relay's, one ratio per round. */
export function munjaToFloorCpu(rounds: readonly Round[]): number[] {
  return rounds.map((round) => cpuPerRequestUs(round.munja.saturated) / cpuPerRequestUs(round.floor.saturated));
}

/** Munja's throughput over the floor relay's, one ratio per round. */
export function munjaToFloorThroughput(rounds: readonly Round[]): number[] {
  return rounds.map((round) => round.munja.saturated.load.requestsPerSecond / round.floor.saturated.load.requestsPerSecond);
}

/**
 * Munja's paced latency percentile minus the floor relay's, one difference per round: +Infinity
 * when Munja fell behind and the floor relay held the rate, NaN when the floor relay fell behind
 * (nothing to compare with) or either was not run.
 */
export function addedOverFloorMs(rounds: readonly Round[], percentile: 'p50' | 'p99'): number[] {
  return rounds.map((round) => {
    const [floor, munja] = [round.floor.paced, round.munja.paced];
    if (floor === undefined || munja === undefined || floor.gaveUp !== undefined) return Number.NaN;
    return munja.gaveUp !== undefined ? Number.POSITIVE_INFINITY : munja.latencyMs[percentile] - floor.latencyMs[percentile];
  });
}

/** CPU of a `fast` local completion over Munja's relayed request, one ratio per round that ran both. */
export function localToRelay(rounds: readonly Round[]): number[] {
  return rounds.map((round) => (round.local === undefined ? Number.NaN : cpuPerRequestUs(round.local) / cpuPerRequestUs(round.munja.saturated)));
}

/** CPU of another protocol's JSON request over the same chat request's, one ratio per round that ran both. */
export function protocolToChat(rounds: readonly Round[], pick: (runs: ProtocolRuns) => ClosedLoopResult): number[] {
  return rounds.map((round) => (round.protocols === undefined ? Number.NaN : cpuPerRequestUs(pick(round.protocols)) / cpuPerRequestUs(round.munja.saturated)));
}

/** CPU of another protocol's 100-chunk stream over the chat stream's, one ratio per round that ran both. */
export function protocolStreamToChat(rounds: readonly Round[], pick: (runs: ProtocolRuns) => ClosedLoopResult): number[] {
  return rounds.map((round) => (round.protocols === undefined || round.munja.streams === undefined ? Number.NaN : cpuPerRequestUs(pick(round.protocols)) / cpuPerRequestUs(round.munja.streams)));
}

/** CPU of the chat JSON request with budgets on over the same request's with them off, one ratio per round that ran both. */
export function budgetsToOff(rounds: readonly Round[]): number[] {
  return rounds.map((round) => (round.budgets === undefined ? Number.NaN : cpuPerRequestUs(round.budgets) / cpuPerRequestUs(round.munja.saturated)));
}
