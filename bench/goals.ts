// The headline figures per target and the targets, judged on them: pass, FAIL, or not measured
// (with the reason). Nothing is rounded in Munja's favour. The non-streaming CPU, throughput,
// latency, allocation and local-engine targets are set against the floor relay (floor-goals.ts);
// nginx stays the outside reference for streams.
import { type CacheReply, HIT_GOAL, hitOverRelayed, medianCpu, replyLabel } from './cache-cost.ts';
import { type ClosedLoopResult, cpuPerRequestUs } from './closed-loop.ts';
import { MiB, mib, ms, ratio } from './format.ts';
import type { PacedResult } from './paced-load.ts';
import type { TargetRun } from './phases.ts';
import type { Results } from './report.ts';
import { floorGoals } from './floor-goals.ts';
import { floorToNginxStreams, munjaToNginxStreams, type Round, spreadOf } from './rounds.ts';
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
  readonly verdict: 'pass' | 'FAIL' | 'not measured' | 'pass at the cap';
}

const judge = (ok: boolean | undefined): Goal['verdict'] => (ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL');
const STREAM_OVER_NGINX_LIMIT = 1.0;

/**
 * CPU per 100-chunk stream against nginx: on the median of the rounds' ratios when the rounds ran
 * streams (one run of each moves by 10 % between hours), on the one side-by-side run otherwise.
 */
export function streamGoal(rounds: readonly Round[] | undefined, munja: Headline | undefined, nginx: Headline | undefined): Goal {
  const goal = `CPU per 100-chunk stream ≤ ${STREAM_OVER_NGINX_LIMIT.toFixed(1)}× nginx's`;
  const spread = rounds === undefined ? undefined : spreadOf(munjaToNginxStreams(rounds));
  if (rounds !== undefined && spread !== undefined) {
    const median = (pick: (round: Round) => ClosedLoopResult | undefined) => spreadOf(rounds.map((round) => {
      const run = pick(round);
      return run === undefined ? Number.NaN : cpuPerRequestUs(run) / 1000;
    }))?.median;
    const floor = spreadOf(floorToNginxStreams(rounds));
    const floorText = floor === undefined ? '' : `; the floor relay ${ratio(floor.median)} nginx's (${ratio(floor.min)}–${ratio(floor.max)})`;
    return {
      goal,
      measured: `median of the rounds' ratios ${ratio(spread.median)} (${ratio(spread.min)}–${ratio(spread.max)}); Munja ${ms(median((round) => round.munja.streams))} ms, nginx ${ms(median((round) => round.nginxStreams))} ms (medians)${floorText}`,
      verdict: judge(spread.median <= STREAM_OVER_NGINX_LIMIT),
    };
  }
  const streamRatio = munja && nginx ? munja.cpuPerStreamMs / nginx.cpuPerStreamMs : undefined;
  return { goal, measured: streamRatio === undefined ? 'nginx not measured' : `${ms(munja!.cpuPerStreamMs)} ms vs ${ms(nginx!.cpuPerStreamMs)} ms = ${ratio(streamRatio)}`, verdict: judge(streamRatio === undefined ? undefined : streamRatio <= STREAM_OVER_NGINX_LIMIT) };
}

/** A response-cache hit costs at most HIT_GOAL× the relayed request's CPU (medians of the rounds). */
function cacheGoal(results: Results, reply: CacheReply): Goal {
  const goal = `Response-cache hit ≤ ${HIT_GOAL}× a relayed request's CPU (${replyLabel(reply)})`;
  const cost = results.cache;
  if (cost === undefined) return { goal, measured: 'not run', verdict: 'not measured' };
  const share = hitOverRelayed(cost, reply);
  const nginx = medianCpu(cost, `static-${reply}`);
  return {
    goal,
    measured: `${ratio(share)}: hit ${Math.round(medianCpu(cost, `cache-hit-${reply}`))} µs, relayed ${Math.round(medianCpu(cost, `relayed-${reply}`))} µs${Number.isNaN(nginx) ? '' : `, nginx's static file ${Math.round(nginx)} µs`} (medians of ${cost.rounds} rounds)`,
    verdict: judge(Number.isNaN(share) ? undefined : share <= HIT_GOAL),
  };
}

export function goals(results: Results): Goal[] {
  const nginx = headline(byName(results, 'nginx'));
  const munja = headline(byName(results, 'munja'));
  const list: Goal[] = floorGoals(results.rounds);
  list.push(streamGoal(results.rounds, munja, nginx));
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
  for (const reply of ['json', 'stream'] as const satisfies readonly CacheReply[]) list.push(cacheGoal(results, reply));
  const workers = results.workers === undefined ? undefined : results.workers.two.load.requestsPerSecond / results.workers.one.load.requestsPerSecond;
  list.push({ goal: 'MUNJA_WORKERS=2 ≥ 1.6× one worker (load generator elsewhere)', measured: workers === undefined ? 'not run' : `${ratio(workers)}, with the load generator and mock on the same 2 cores (see below)`, verdict: judge(workers === undefined ? undefined : workers >= 1.6) });
  return list;
}
