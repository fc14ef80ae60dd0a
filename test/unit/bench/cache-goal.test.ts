// The response-cache part of bench/REPORT.md: its table and its two targets (a hit at most 0.5× a
// relayed request's CPU, JSON and streams), judged on the medians of the rounds.
import { describe, expect, it } from 'vitest';
import { type CacheCost, cacheCostTable } from '../../../bench/cache-cost.ts';
import type { ClosedLoopResult } from '../../../bench/closed-loop.ts';
import { goals } from '../../../bench/goals.ts';
import type { Results } from '../../../bench/report.ts';

function run(id: string, cpuUs: number): ClosedLoopResult {
  return { target: { pids: [1] }, scenario: { id }, load: { requestsPerSecond: 1000, responses: 1000 }, usage: { cpuSeconds: (cpuUs * 1000) / 1e6 } } as unknown as ClosedLoopResult;
}

/** Three rounds; `hit` gives each round's hit CPU for JSON, streams cost ten times as much. */
function cost(hit: readonly number[]): CacheCost {
  const runs = new Map<string, ClosedLoopResult[]>();
  for (const [reply, scale] of [['json', 1], ['stream', 10]] as const) {
    runs.set(`relayed-${reply}`, [100, 110, 90].map((us) => run(`relayed-${reply}`, us * scale)));
    runs.set(`cache-hit-${reply}`, hit.map((us) => run(`cache-hit-${reply}`, us * scale)));
    runs.set(`static-${reply}`, [20, 20, 20].map((us) => run(`static-${reply}`, us * scale)));
  }
  return { runs, rounds: 3, seconds: 5, connections: 50, nginxNote: '' };
}

const results = (cache?: CacheCost): Results => ({ targets: [], munjaOnly: [], notes: [], ...(cache === undefined ? {} : { cache }) });
const cacheGoals = (cache?: CacheCost) => goals(results(cache)).filter((goal) => goal.goal.startsWith('Response-cache hit'));

describe('the response-cache targets', () => {
  it('pass on a median hit at most half the relayed CPU', () => {
    const judged = cacheGoals(cost([40, 90, 45]));
    expect(judged.map((goal) => goal.verdict)).toEqual(['pass', 'pass']);
    expect(judged[0]!.measured).toContain('hit 45 µs, relayed 100 µs');
  });

  it('fail past it, and are not measured when the part was skipped', () => {
    expect(cacheGoals(cost([60, 55, 70])).map((goal) => goal.verdict)).toEqual(['FAIL', 'FAIL']);
    expect(cacheGoals().map((goal) => goal.verdict)).toEqual(['not measured', 'not measured']);
  });

  it('are shown in a table with nginx\'s static file beside them', () => {
    const text = cacheCostTable(cost([40, 90, 45]));
    expect(text).toContain('| JSON | 100 | 45 | 20 |');
    expect(text).toContain('Medians of 3 round(s)');
    expect(text).not.toContain('CHECKS FAILED');
  });
});
