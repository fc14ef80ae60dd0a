// The targets set against the floor relay (bench/floor/bare-relay.ts), judged on the fresh-process
// rounds (rounds.ts): each figure is taken within a round, and the median over the rounds decides.
// Without the rounds there is no floor relay to compare with, and they are not measured.
import { BASELINE_ALLOCATION } from './allocation/baseline.ts';
import { cpuPerRequestUs } from './closed-loop.ts';
import { fixed, ratio, signedMs, thousands } from './format.ts';
import type { Goal } from './goals.ts';
import { addedOverFloorMs, budgetsToOff, localToRelay, protocolStreamToChat, protocolToChat, munjaToFloorCpu, munjaToFloorThroughput, type Round, type RoundRun, ROUND_RATE, type Spread, spreadOf } from './rounds.ts';

export const CPU_OVER_FLOOR_LIMIT = 1.5;
export const CPU_OVER_FLOOR_AIM = 1.3;
export const THROUGHPUT_OVER_FLOOR_MIN = 0.7;
export const ADDED_P50_LIMIT_MS = 0.05;
export const ADDED_P99_LIMIT_MS = 0.5;
export const ALLOCATION_SHARE_OF_BASELINE = 1 / 3;
export const LOCAL_OVER_RELAY_LIMIT = 1.5;
export const PROTOCOL_OVER_CHAT_LIMIT = 1.3;
/** Budgets on (each request reserves and settles its cost) over budgets off, CPU per request. */
export const BUDGETS_OVER_OFF_LIMIT = 1.1;

const judge = (ok: boolean | undefined): Goal['verdict'] => (ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL');
const NOT_RUN = 'not run (needs the rounds)';
const range = (spread: Spread, show: (value: number) => string) => `${show(spread.median)} (${show(spread.min)}–${show(spread.max)})`;
const whole = (value: number) => fixed(value, 0);

function cpuGoal(rounds: readonly Round[]): Goal {
  const goal = `CPU per non-streaming request ≤ ${CPU_OVER_FLOOR_LIMIT}× the floor relay's (aim: ${CPU_OVER_FLOOR_AIM}×)`;
  const ratios = spreadOf(munjaToFloorCpu(rounds));
  if (ratios === undefined) return { goal, measured: NOT_RUN, verdict: 'not measured' };
  const munja = spreadOf(rounds.map((round) => cpuPerRequestUs(round.munja.saturated)))!;
  const floor = spreadOf(rounds.map((round) => cpuPerRequestUs(round.floor.saturated)))!;
  const added = spreadOf(rounds.map((round) => cpuPerRequestUs(round.munja.saturated) - cpuPerRequestUs(round.floor.saturated)))!;
  const aim = ratios.median <= CPU_OVER_FLOOR_AIM ? 'reached' : 'not reached';
  return {
    goal,
    measured: `median of the rounds' ratios ${range(ratios, ratio)}; Munja ${range(munja, whole)} µs, floor ${range(floor, whole)} µs, Munja − floor ${range(added, whole)} µs; aim ${aim}`,
    verdict: judge(ratios.median <= CPU_OVER_FLOOR_LIMIT),
  };
}

function throughputGoal(rounds: readonly Round[]): Goal {
  const goal = `Throughput on one core ≥ ${THROUGHPUT_OVER_FLOOR_MIN}× the floor relay's`;
  const ratios = spreadOf(munjaToFloorThroughput(rounds));
  if (ratios === undefined) return { goal, measured: NOT_RUN, verdict: 'not measured' };
  const munja = spreadOf(rounds.map((round) => round.munja.saturated.load.requestsPerSecond))!;
  const floor = spreadOf(rounds.map((round) => round.floor.saturated.load.requestsPerSecond))!;
  return {
    goal,
    measured: `median of the rounds' ratios ${range(ratios, ratio)}; Munja ${thousands(munja.median)} req/s, floor ${thousands(floor.median)} req/s (medians)`,
    verdict: judge(ratios.median >= THROUGHPUT_OVER_FLOOR_MIN),
  };
}

/** A round in which Munja fell behind (and the floor relay did not) counts as an infinite difference. */
function addedLatencyGoal(rounds: readonly Round[], percentile: 'p50' | 'p99', limitMs: number): Goal {
  const goal = `Added latency at ${thousands(ROUND_RATE)} req/s paced: Munja's ${percentile} ≤ the floor relay's + ${limitMs} ms`;
  const pacedRounds = rounds.filter((round) => round.munja.paced !== undefined && round.floor.paced !== undefined);
  if (pacedRounds.length === 0) return { goal, measured: NOT_RUN, verdict: 'not measured' };
  const behind = (pick: (round: Round) => RoundRun) => pacedRounds.filter((round) => pick(round).paced!.gaveUp !== undefined).length;
  const differences = spreadOf(addedOverFloorMs(rounds, percentile), true);
  const fellBehind = `fell behind: Munja in ${behind((round) => round.munja)}, the floor relay in ${behind((round) => round.floor)} of ${pacedRounds.length} rounds`;
  if (differences === undefined) return { goal, measured: `no round in which the floor relay held the rate (${fellBehind})`, verdict: 'not measured' };
  const own = (pick: (round: Round) => RoundRun) => spreadOf(rounds.map((round) => {
    const paced = pick(round).paced;
    return paced === undefined || paced.gaveUp !== undefined ? Number.NaN : paced.latencyMs[percentile];
  }))?.median;
  const signed = (value: number) => (value === Number.POSITIVE_INFINITY ? 'fell behind' : `${signedMs(value)} ms`);
  return {
    goal,
    measured: `median of the rounds' differences ${signed(differences.median)} (${signed(differences.min)} to ${signed(differences.max)}); Munja ${fixed(own((round) => round.munja), 3)} ms, floor ${fixed(own((round) => round.floor), 3)} ms (medians); ${fellBehind}`,
    verdict: judge(differences.median <= limitMs),
  };
}

function allocationGoal(rounds: readonly Round[]): Goal {
  const limit = BASELINE_ALLOCATION.bytesPerRequest * ALLOCATION_SHARE_OF_BASELINE;
  const goal = `JS heap allocated per non-streaming request ≤ a third of ${BASELINE_ALLOCATION.commit}'s ${thousands(BASELINE_ALLOCATION.bytesPerRequest)} B (≤ ${thousands(limit)} B)`;
  const munja = spreadOf(rounds.map((round) => round.munja.allocation?.bytesPerRequest ?? Number.NaN));
  if (munja === undefined) return { goal, measured: NOT_RUN, verdict: 'not measured' };
  const floor = spreadOf(rounds.map((round) => round.floor.allocation?.bytesPerRequest ?? Number.NaN));
  const failed = rounds.reduce((sum, round) => sum + (round.munja.allocation === undefined ? 0 : round.munja.allocation.requests - round.munja.allocation.ok), 0);
  return {
    goal,
    measured: `Munja median ${range(munja, thousands)} B (${fixed(munja.median / BASELINE_ALLOCATION.bytesPerRequest, 2)} of the baseline); floor ${floor === undefined ? '—' : range(floor, thousands)} B${failed > 0 ? `; **${failed} counted requests did not get 200**` : ''}`,
    verdict: failed > 0 ? 'FAIL' : judge(munja.median <= limit),
  };
}

function localEngineGoal(rounds: readonly Round[]): Goal {
  const goal = `Local engine: CPU per \`fast\` completion (max_tokens 16) ≤ ${LOCAL_OVER_RELAY_LIMIT}× Munja's relayed request`;
  const ratios = spreadOf(localToRelay(rounds));
  if (ratios === undefined) return { goal, measured: 'not run (needs the rounds, without BENCH_SKIP=local)', verdict: 'not measured' };
  const local = spreadOf(rounds.map((round) => (round.local === undefined ? Number.NaN : cpuPerRequestUs(round.local))))!;
  const perSecond = spreadOf(rounds.map((round) => round.local?.load.requestsPerSecond ?? Number.NaN))!;
  return {
    goal,
    measured: `median of the rounds' ratios ${range(ratios, ratio)}; local ${range(local, whole)} µs, ${thousands(perSecond.median)} req/s on one core (medians)`,
    verdict: judge(ratios.median <= LOCAL_OVER_RELAY_LIMIT),
  };
}

function protocolGoal(ratios: readonly number[], what: string): Goal {
  const goal = `${what} ≤ ${PROTOCOL_OVER_CHAT_LIMIT}× the same chat request's CPU`;
  const spread = spreadOf(ratios);
  if (spread === undefined) return { goal, measured: 'not run (needs the rounds, without BENCH_SKIP=protocols)', verdict: 'not measured' };
  return { goal, measured: `median of the rounds' ratios ${range(spread, ratio)}`, verdict: judge(spread.median <= PROTOCOL_OVER_CHAT_LIMIT) };
}

function budgetsGoal(ratios: readonly number[]): Goal {
  const goal = `Chat request with budgets on ≤ ${BUDGETS_OVER_OFF_LIMIT}× the CPU of budgets off`;
  const spread = spreadOf(ratios);
  if (spread === undefined) return { goal, measured: 'not run (needs the rounds, without BENCH_SKIP=budgets)', verdict: 'not measured' };
  return { goal, measured: `median of the rounds' ratios ${range(spread, ratio)}`, verdict: judge(spread.median <= BUDGETS_OVER_OFF_LIMIT) };
}

export function floorGoals(rounds: readonly Round[] | undefined): Goal[] {
  const all = rounds ?? [];
  return [
    cpuGoal(all),
    throughputGoal(all),
    addedLatencyGoal(all, 'p50', ADDED_P50_LIMIT_MS),
    addedLatencyGoal(all, 'p99', ADDED_P99_LIMIT_MS),
    allocationGoal(all),
    localEngineGoal(all),
    protocolGoal(protocolToChat(all, (runs) => runs.responsesJson), 'Responses API request (translated to chat and back)'),
    protocolGoal(protocolStreamToChat(all, (runs) => runs.responsesStream), 'Responses API 100-chunk stream'),
    protocolGoal(protocolToChat(all, (runs) => runs.messagesJson), 'Messages API request (translated to chat and back)'),
    protocolGoal(protocolStreamToChat(all, (runs) => runs.messagesStream), 'Messages API 100-chunk stream'),
    budgetsGoal(budgetsToOff(all)),
  ];
}
