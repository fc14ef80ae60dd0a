// The headline figures per target and the targets, judged on them: pass, FAIL, or not
// measured (with the reason). Nothing is rounded in Munja's favour.
import { cpuPerRequestUs } from './closed-loop.ts';
import { fixed, MiB, mib, ms, ratio, signedMs } from './format.ts';
import type { PacedResult } from './paced-load.ts';
import type { TargetRun } from './phases.ts';
import type { Results } from './report.ts';
import { munjaToDirect, munjaToNginx, type Spread, spreadOf } from './rounds.ts';
import type { TargetName } from './scenarios/index.ts';

export interface Headline {
  readonly requestsPerSecond: number;
  readonly cpuPerRequestUs: number;
  readonly cpuPerStreamMs: number;
  readonly peakRssBytes: number;
}

export function headline(run: TargetRun | undefined): Headline | undefined {
  if (run?.json === undefined) return undefined;
  const stream = run.stream;
  return {
    requestsPerSecond: run.json.load.requestsPerSecond,
    cpuPerRequestUs: cpuPerRequestUs(run.json),
    cpuPerStreamMs: stream === undefined ? Number.NaN : cpuPerRequestUs(stream) / 1000,
    peakRssBytes: run.json.target.pids.length === 0 ? Number.NaN : Math.max(run.json.usage.peakRssBytes, stream?.usage.peakRssBytes ?? 0),
  };
}

export const byName = (results: Results, name: TargetName) => results.targets.find((run) => run.name === name && run.skipped === undefined);

/** Added latency of `run` over `direct` at `rate`, from the scheduled send time; undefined when not measured. */
export function addedLatency(run: TargetRun | undefined, direct: TargetRun | undefined, rate: number): { p50: number; p99: number; paced: PacedResult } | undefined {
  const mine = run?.paced.find((result) => result.rate === rate);
  const base = direct?.paced.find((result) => result.rate === rate);
  if (mine === undefined || base === undefined) return undefined;
  return { p50: mine.latencyMs.p50 - base.latencyMs.p50, p99: mine.latencyMs.p99 - base.latencyMs.p99, paced: mine };
}

export interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly verdict: 'pass' | 'FAIL' | 'not measured' | 'pass at the cap' | 'noise: direct was slower';
}

const judge = (ok: boolean | undefined): Goal['verdict'] => (ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL');

/**
 * An added latency within `limitMs`. Below zero, the direct baseline's own percentile was worse
 * than the proxy's, which only a stall of the shared machine during the direct run explains:
 * nothing was measured about the proxy.
 */
function judgeAdded(addedMs: number | undefined, held: boolean, limitMs: number): Goal['verdict'] {
  if (addedMs === undefined) return 'not measured';
  if (!held) return 'FAIL';
  return addedMs < 0 ? 'noise: direct was slower' : judge(addedMs <= limitMs);
}

/** Judged on the median of the fresh-process rounds' ratios when they ran, else on the side-by-side run. */
function cpuGoal(munja: Headline | undefined, nginx: Headline | undefined, rounds: Spread | undefined): Goal {
  const goal = 'CPU per non-streaming request ≤ 1.5× nginx';
  const single = munja && nginx ? munja.cpuPerRequestUs / nginx.cpuPerRequestUs : undefined;
  const singleText = single === undefined ? 'nginx not measured' : `${fixed(munja!.cpuPerRequestUs, 0)} µs vs ${fixed(nginx!.cpuPerRequestUs, 0)} µs = ${ratio(single)}`;
  if (rounds === undefined) return { goal, measured: singleText, verdict: judge(single === undefined ? undefined : single <= 1.5) };
  return {
    goal,
    measured: `median of the fresh-process rounds ${ratio(rounds.median)} (${ratio(rounds.min)}–${ratio(rounds.max)}); side-by-side run ${singleText}`,
    verdict: judge(rounds.median <= 1.5),
  };
}

/** Judged on the median of the fresh-process rounds when they ran, else on the side-by-side run. */
function throughputGoal(munja: Headline | undefined, direct: Headline | undefined, rounds: Spread | undefined): Goal {
  const goal = 'Throughput on one core ≥ 0.8× direct';
  const single = munja && direct ? munja.requestsPerSecond / direct.requestsPerSecond : undefined;
  if (rounds === undefined) return { goal, measured: `${ratio(single)} direct`, verdict: judge(single === undefined ? undefined : single >= 0.8) };
  return {
    goal,
    measured: `median of the fresh-process rounds ${ratio(rounds.median)} (${ratio(rounds.min)}–${ratio(rounds.max)}) direct; side-by-side run ${ratio(single)}`,
    verdict: judge(rounds.median >= 0.8),
  };
}

export function goals(results: Results): Goal[] {
  const direct = headline(byName(results, 'direct'));
  const nginx = headline(byName(results, 'nginx'));
  const munja = headline(byName(results, 'munja'));
  const list: Goal[] = [];
  list.push(cpuGoal(munja, nginx, spreadOf(munjaToNginx(results.rounds ?? []))));
  list.push(throughputGoal(munja, direct, spreadOf(munjaToDirect(results.rounds ?? []))));
  const at1000 = addedLatency(byName(results, 'munja'), byName(results, 'direct'), 1000);
  const held1000 = at1000 !== undefined && at1000.paced.gaveUp === undefined;
  list.push({ goal: 'Added latency at 1000 req/s paced: p50 ≤ 0.2 ms', measured: at1000 === undefined ? 'not run' : `${signedMs(at1000.p50)} ms`, verdict: judgeAdded(at1000?.p50, held1000, 0.2) });
  list.push({ goal: 'Added latency at 1000 req/s paced: p99 ≤ 1 ms', measured: at1000 === undefined ? 'not run' : `${signedMs(at1000.p99)} ms`, verdict: judgeAdded(at1000?.p99, held1000, 1) });
  const at5000 = addedLatency(byName(results, 'munja'), byName(results, 'direct'), 5000);
  list.push({ goal: 'Added latency at 5000 req/s paced: p99 ≤ 2 ms', measured: at5000 === undefined ? 'not run' : `${signedMs(at5000.p99)} ms`, verdict: judgeAdded(at5000?.p99, at5000?.paced.gaveUp === undefined, 2) });
  const streamRatio = munja && nginx ? munja.cpuPerStreamMs / nginx.cpuPerStreamMs : undefined;
  list.push({ goal: 'CPU per 100-chunk stream ≤ 1.2× nginx', measured: streamRatio === undefined ? 'nginx not measured' : `${ms(munja!.cpuPerStreamMs)} ms vs ${ms(nginx!.cpuPerStreamMs)} ms = ${ratio(streamRatio)}`, verdict: judge(streamRatio === undefined ? undefined : streamRatio <= 1.2) });
  const delivery = byName(results, 'munja')?.delivery;
  list.push({
    goal: 'Paced upstream chunks reach the client within 1 ms (p99)',
    measured: delivery === undefined ? 'not run' : `p50 ${ms(delivery.deliveryMs.p50)} ms, p99 ${ms(delivery.deliveryMs.p99)} ms, max ${ms(delivery.deliveryMs.max)} ms`,
    verdict: judge(delivery === undefined ? undefined : delivery.deliveryMs.p99 <= 1 && delivery.failedStreams === 0),
  });
  const many = results.manyStreams;
  list.push({
    goal: '10,000 concurrent open streams on one worker, no errors',
    measured: many === undefined ? 'not run' : `${many.opened.toLocaleString('en-US')} of ${many.attempted.toLocaleString('en-US')} opened, ${many.errors} errors, ${many.stalled} stalled${many.capNote === undefined ? '' : ' (capped, see below)'}`,
    verdict: many === undefined
      ? 'not measured'
      : many.errors > 0 || many.stalled > 0 || many.opened < many.attempted ? 'FAIL' : many.attempted >= 10_000 ? 'pass' : 'pass at the cap',
  });
  list.push({ goal: '… with RSS ≤ 300 MiB', measured: many === undefined ? 'not run' : `peak ${mib(many.peak.rssBytes)} MiB (idle ${mib(many.idle.rssBytes)} MiB)`, verdict: judge(many === undefined ? undefined : many.peak.rssBytes <= 300 * MiB) });
  const backNear = many === undefined ? undefined : many.afterClose.rssBytes - many.idle.rssBytes <= many.idle.rssBytes * 0.1 + 20 * MiB;
  list.push({ goal: '… and RSS back near idle after they close (≤ idle + 10 % + 20 MiB)', measured: many === undefined ? 'not run' : `${mib(many.afterClose.rssBytes)} MiB after close, ${many.afterClose.fds} descriptors (idle ${many.idle.fds})`, verdict: judge(backNear) });
  const soak = results.soak;
  list.push({
    goal: `No leak over the soak of connect/abort cycles (RSS after ≤ before + 10 % + 20 MiB; descriptors other than pooled upstream connections ≤ before + 5)`,
    measured: soak === undefined ? 'not run' : `${soak.seconds} s, ${soak.cycles.toLocaleString('en-US')} cycles: ${mib(soak.start.rssBytes)} → ${mib(soak.end.rssBytes)} MiB (second half of the soak: ${mib(soak.secondHalfGrowthBytes)} MiB); descriptors ${soak.start.fds} → ${soak.end.fds}, of which upstream keep-alive ${soak.start.upstreamConnections} → ${soak.end.upstreamConnections}`,
    // Descriptors: the pool's idle upstream connections come and go with the traffic; others must not stay.
    verdict: judge(soak === undefined ? undefined : soak.withinBudget && soak.end.fds - soak.end.upstreamConnections <= soak.start.fds - soak.start.upstreamConnections + 5),
  });
  const workers = results.workers === undefined ? undefined : results.workers.two.load.requestsPerSecond / results.workers.one.load.requestsPerSecond;
  list.push({ goal: 'MUNJA_WORKERS=2 ≥ 1.6× one worker (load generator elsewhere)', measured: workers === undefined ? 'not run' : `${ratio(workers)}, with the load generator and mock on the same 2 cores (see below)`, verdict: judge(workers === undefined ? undefined : workers >= 1.6) });
  return list;
}
