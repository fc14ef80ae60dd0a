import { describe, expect, it } from 'vitest';
import type { AllocationResult } from '../../../bench/allocation/measure.ts';
import { BASELINE_ALLOCATION } from '../../../bench/allocation/baseline.ts';
import type { ClosedLoopResult } from '../../../bench/closed-loop.ts';
import { floorGoals } from '../../../bench/floor-goals.ts';
import type { PacedResult } from '../../../bench/paced-load.ts';
import { type Headline, streamGoal } from '../../../bench/goals.ts';
import { roundsCpuTable, roundsLatencyTable, roundsStreamTable } from '../../../bench/report-rounds.ts';
import type { Round, RoundRun } from '../../../bench/rounds.ts';

/** A saturation run of 1 s: `cpuUs` of CPU per request at `perSecond`. */
function saturated(cpuUs: number, perSecond: number, label = 'proxy'): ClosedLoopResult {
  return {
    target: { label, pids: [1] },
    scenario: { id: 'chat-json' },
    load: { requestsPerSecond: perSecond, responses: perSecond },
    usage: { cpuSeconds: (cpuUs * perSecond) / 1e6 },
  } as unknown as ClosedLoopResult;
}

function paced(p50: number, p99: number, gaveUp?: string): PacedResult {
  return { rate: 1000, latencyMs: { p50, p99 }, gaveUp, scheduled: 5000, errors: 0, lateSends: 0 } as unknown as PacedResult;
}

const allocation = (bytesPerRequest: number): AllocationResult => ({ requests: 10_000, ok: 10_000, allocatedBytes: bytesPerRequest * 10_000, bytesPerRequest, collections: 10 });

function run(cpuUs: number, perSecond: number, pacedRun: PacedResult, bytes: number, streamUs?: number): RoundRun {
  return { saturated: saturated(cpuUs, perSecond), streams: streamUs === undefined ? undefined : saturated(streamUs, 500), paced: pacedRun, allocation: allocation(bytes) };
}

function round(munjaCpuUs: number, munjaPaced: PacedResult, munjaBytes: number): Round {
  return {
    direct: { ...saturated(0, 40_000), target: { label: 'direct', pids: [] } } as unknown as ClosedLoopResult,
    nginx: saturated(20, 45_000),
    nginxStreams: undefined,
    floor: run(30, 30_000, paced(0.3, 1.0), 6_800),
    munja: run(munjaCpuUs, 22_000, munjaPaced, munjaBytes),
    local: saturated(munjaCpuUs * 1.2, 15_000),
    protocols: { responsesJson: saturated(munjaCpuUs * 1.2, 20_000), responsesStream: saturated(700, 450), messagesJson: saturated(munjaCpuUs * 1.1, 20_000), messagesStream: saturated(650, 450) },
    budgets: saturated(munjaCpuUs * 1.05, 21_000),
  };
}

describe('the targets set against the floor relay', () => {
  it('judges the medians of the rounds', () => {
    const rounds = [round(40, paced(0.33, 1.3), 9_000), round(42, paced(0.34, 1.4), 9_500), round(90, paced(0.9, 9), 30_000)];
    const goals = floorGoals(rounds);
    // No chat streams in these rounds: the stream ratio has nothing to be taken over.
    expect(goals.map((goal) => goal.verdict)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'not measured', 'pass', 'not measured', 'pass']);
    expect(goals[10]!.measured).toContain('1.05×');
    expect(goals[6]!.measured).toContain('1.20×');
    expect(goals[0]!.measured).toContain('1.40×');
    expect(goals[4]!.goal).toContain(BASELINE_ALLOCATION.commit);
  });

  it('counts a round in which Munja fell behind as an infinite difference', () => {
    const behind = paced(Number.NaN, Number.NaN, 'more than 1000 requests outstanding');
    const rounds = [round(40, behind, 9_000), round(40, behind, 9_000), round(40, paced(0.31, 1.1), 9_000)];
    const added = floorGoals(rounds).filter((goal) => goal.goal.startsWith('Added latency'));
    expect(added.map((goal) => goal.verdict)).toEqual(['FAIL', 'FAIL']);
    expect(added[0]!.measured).toContain('fell behind: Munja in 2');
  });

  it('fails what is over its limit and says what was not run', () => {
    const [cpu, , , , allocated] = floorGoals([round(60, paced(0.5, 2), 20_000)]);
    expect([cpu!.verdict, allocated!.verdict]).toEqual(['FAIL', 'FAIL']);
    expect(floorGoals(undefined).every((goal) => goal.verdict === 'not measured')).toBe(true);
  });

  it('judges the other protocols against chat in the same process', () => {
    const withStreams = (responsesStreamUs: number): Round => {
      const base = round(40, paced(0.33, 1.3), 9_000);
      return { ...base, munja: { ...base.munja, streams: saturated(600, 500) }, protocols: { ...base.protocols!, responsesStream: saturated(responsesStreamUs, 450) } };
    };
    const streamGoal = (rounds: Round[]) => floorGoals(rounds)[7]!;
    expect(streamGoal([withStreams(700), withStreams(720), withStreams(2_000)]).verdict).toBe('pass');
    expect(streamGoal([withStreams(900), withStreams(820), withStreams(700)]).verdict).toBe('FAIL');
  });

  it('judges budgets on against budgets off, and says when they were not run', () => {
    const base = round(40, paced(0.33, 1.3), 9_000);
    const budgetGoal = (rounds: Round[]) => floorGoals(rounds)[10]!;
    expect(budgetGoal([{ ...base, budgets: saturated(48, 20_000) }]).verdict).toBe('FAIL');
    expect(budgetGoal([{ ...base, budgets: undefined }]).verdict).toBe('not measured');
  });

  it('takes the mean of the two middle rounds when their count is even', () => {
    const [cpu] = floorGoals([round(45, paced(0.3, 1), 9_000), round(30, paced(0.3, 1), 9_000)]);
    expect(cpu!.measured).toContain('median of the rounds\' ratios 1.25×');
  });

  it('renders every round and the medians', () => {
    const rounds = [round(40, paced(0.33, 1.3), 9_000), round(42, paced(Number.NaN, Number.NaN, 'behind'), 9_500)];
    const latency = roundsLatencyTable(rounds);
    expect(latency).toContain('fell behind');
    expect(latency).toContain('9,000');
    expect(roundsCpuTable(rounds)).toContain('**median (range)**');
  });
});

describe('the stream target against nginx', () => {
  /** A round whose 100-chunk streams cost Munja `munjaMs`, nginx `nginxMs` and the floor relay `floorMs` of CPU each. */
  function streamRound(munjaMs: number, nginxMs: number, floorMs = 0.65): Round {
    const base = round(40, paced(0.3, 1), 9_000);
    return {
      ...base,
      nginxStreams: saturated(nginxMs * 1000, 1_000),
      floor: { ...base.floor, streams: saturated(floorMs * 1000, 1_000) },
      munja: { ...base.munja, streams: saturated(munjaMs * 1000, 1_000) },
    };
  }
  const headline = (cpuPerStreamMs: number): Headline => ({ requestsPerSecond: 1, cpuPerRequestUs: 1, cpuPerStreamMs, peakRssBytes: 1 });

  it('judges the median of the rounds, not the single run', () => {
    const rounds = [streamRound(0.7, 0.72), streamRound(0.8, 0.7), streamRound(0.66, 0.7)];
    const goal = streamGoal(rounds, headline(0.9), headline(0.6));
    expect(goal.verdict).toBe('pass');
    expect(goal.measured).toContain('median of the rounds\' ratios 0.97×');
    expect(goal.measured).toContain('the floor relay 0.93× nginx\'s (0.90×–0.93×)');
    const table = roundsStreamTable(rounds);
    expect(table).toContain('**median (range)**');
    expect(table).toContain('| 1 | 0.720 | 0.650 (0.90×) | 0.700 | 0.97× | 1.08× |');
    expect(streamGoal([streamRound(0.8, 0.7), streamRound(0.75, 0.7)], headline(0.5), headline(0.6)).verdict).toBe('FAIL');
  });

  it('falls back to the single run when the rounds ran no streams', () => {
    const goal = streamGoal([round(40, paced(0.3, 1), 9_000)], headline(0.66), headline(0.6));
    expect([goal.verdict, goal.measured]).toEqual(['FAIL', '0.660 ms vs 0.600 ms = 1.10×']);
    expect(roundsStreamTable([round(40, paced(0.3, 1), 9_000)])).toBe('');
  });
});
