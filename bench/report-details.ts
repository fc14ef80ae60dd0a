// The report's detail tables (every figure behind the headline) and the list of problems seen.
import { type ClosedLoopResult, cpuPerRequestUs } from './closed-loop.ts';
import { fixed, mib, ms, percent, ratio, table, thousands } from './format.ts';
import { byName } from './goals.ts';
import { AFTER_CLOSE_SECONDS, type ManyStreamsResult } from './many-streams.ts';
import type { PacedResult } from './paced-load.ts';
import type { Results } from './report.ts';
import type { RunInfo } from './run-info.ts';
import { AT_REST_SECONDS, type SoakResult } from './soak.ts';

export function pacedTable(results: Results): string {
  const runs: { label: string; paced: PacedResult }[] = results.targets.flatMap((run) => run.paced.map((paced) => ({ label: run.label, paced })));
  if (runs.length === 0) return 'Not run.';
  return table(
    ['target', 'rate', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'service p50 / p99 ms', '200 / scheduled', 'errors', 'late sends (> 1 ms)', 'send lag p99 ms', 'waited for a connection', 'CPU stolen', 'fell behind'],
    runs.map(({ label, paced }) => [
      label,
      `${thousands(paced.rate)}/s`,
      ms(paced.latencyMs.p50),
      ms(paced.latencyMs.p90),
      ms(paced.latencyMs.p99),
      ms(paced.latencyMs.p999),
      ms(paced.latencyMs.max),
      `${ms(paced.serviceMs.p50)} / ${ms(paced.serviceMs.p99)}`,
      `${thousands(paced.statuses['200'] ?? 0)} / ${thousands(paced.scheduled)}`,
      String(paced.errors),
      thousands(paced.lateSends),
      ms(paced.sendLagMs.p99),
      thousands(paced.queuedSends),
      percent(paced.steal),
      paced.gaveUp ?? 'no',
    ]),
  );
}

export function deliveryTable(results: Results): string {
  const runs = results.targets.filter((run) => run.delivery !== undefined);
  if (runs.length === 0) return 'Not run.';
  return table(
    ['target', 'streams', 'failed', 'chunk delivery p50 ms', 'p99 ms', 'max ms', 'request → first event p50 ms', 'p99 ms', 'proxy CPU per stream ms'],
    runs.map((run) => {
      const delivery = run.delivery!;
      const cpu = delivery.proxyCpuMsPerStream;
      const nginx = byName(results, 'nginx')?.delivery?.proxyCpuMsPerStream;
      const cpuText = Number.isNaN(cpu) ? '—' : `${ms(cpu)}${nginx !== undefined && run.name !== 'nginx' ? ` (${ratio(cpu / nginx)} nginx)` : ''}`;
      return [run.label, String(delivery.streams), String(delivery.failedStreams), ms(delivery.deliveryMs.p50), ms(delivery.deliveryMs.p99), ms(delivery.deliveryMs.max), ms(delivery.firstEventMs.p50), ms(delivery.firstEventMs.p99), cpuText];
    }),
  );
}

export function closedLoopTable(runs: readonly ClosedLoopResult[]): string {
  return table(
    ['target', 'scenario', 'conns', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'responses', 'unexpected status', 'socket errors', 'checked response', 'proxy CPU µs/req', 'CPU 0 busy', 'CPU 1 busy', 'CPU stolen', 'proxy peak RSS MiB', 'Munja log (status: lines)'],
    runs.map((result) => [
      result.target.label,
      `${result.scenario.id}: ${result.scenario.workload}`,
      String(result.connections),
      thousands(result.load.requestsPerSecond),
      ms(result.load.latencyMs.p50),
      ms(result.load.latencyMs.p90),
      ms(result.load.latencyMs.p99),
      thousands(result.load.responses),
      thousands(result.load.unexpectedStatuses),
      thousands(result.load.errors),
      result.checkProblem === undefined ? 'ok' : `**${result.checkStatus}: ${result.checkProblem}**`,
      fixed(cpuPerRequestUs(result), 0),
      percent(result.usage.cpuBusy[0]),
      percent(result.usage.cpuBusy[1]),
      percent(result.usage.steal),
      result.target.pids.length === 0 ? '—' : mib(result.usage.peakRssBytes),
      result.log === undefined ? '—' : Object.entries(result.log.requestStatuses).map(([status, count]) => `${status}: ${count}`).join(', ') || '—',
    ]),
  );
}

export function manyStreamsTable(many: ManyStreamsResult | undefined, idleAtStart: number | undefined): string {
  if (many === undefined) return 'Not run.';
  const rows = [
    ['idle (before)', mib(many.idle.rssBytes), String(many.idle.fds)],
    ['peak (all open)', mib(many.peak.rssBytes), String(many.peak.fds)],
    [`after close (+${AFTER_CLOSE_SECONDS} s)`, mib(many.afterClose.rssBytes), String(many.afterClose.fds)],
  ];
  return `${many.attempted.toLocaleString('en-US')} streams (${many.wanted.toLocaleString('en-US')} wanted) from a mock sending a chunk a second, spread over ${many.keys} keys, opened at ${many.perSecond.toLocaleString('en-US')}/s in ${fixed(many.openSeconds, 1)} s on a fresh Munja (one worker, CPU 1), held, then all cut by the client. Opened: ${many.opened.toLocaleString('en-US')}; errors: ${many.errors}${many.errors === 0 ? '' : ` (${Object.entries(many.errorKinds).map(([kind, count]) => `${kind}: ${count}`).join(', ')})`}; stalled (no chunk in the last 3 s of the hold): ${many.stalled}.${many.capNote === undefined ? '' : `\n\n**Capped:** ${many.capNote}.`}${idleAtStart === undefined ? '' : ` For scale: the Munja of the side-by-side runs had ${mib(idleAtStart)} MiB resident when it was ready.`}

${table(['Munja', 'RSS MiB', 'open descriptors'], rows)}`;
}

export function soakTable(soak: SoakResult | undefined): string {
  if (soak === undefined) return 'Not run.';
  const step = Math.max(1, Math.floor(soak.points.length / 10));
  const points = soak.points.filter((_, index) => index % step === 0 || index === soak.points.length - 1);
  return `${soak.seconds} s of connect / stream / abort cycles, ${soak.concurrency} at a time, on a fresh Munja (one worker, CPU 1) after a 5 s warm-up: ${soak.cycles.toLocaleString('en-US')} cycles, ${soak.completed.toLocaleString('en-US')} read to the end, ${soak.aborted.toLocaleString('en-US')} cut by the client, ${soak.errors} errors. Memory budget: RSS at rest after the soak ≤ at rest before + 10 % + 20 MiB (each reading ${AT_REST_SECONDS} s after the load) = ${mib(soak.start.rssBytes + soak.budgetBytes)} MiB: **${soak.withinBudget ? 'within' : 'OVER'}** (${mib(soak.end.rssBytes)} MiB). RSS growth over the second half of the soak: ${mib(soak.secondHalfGrowthBytes)} MiB (a leak keeps growing; memory kept after a first climb levels off). The V8 figures come from a probe loaded with \`node --import\` (bench/heap-probe.ts).

${table(['seconds', 'RSS MiB', 'V8 heap used MiB', 'V8 heap total MiB', 'external MiB', 'open descriptors', 'of which upstream keep-alive'], points.map((point) => [fixed(point.seconds, 0), mib(point.rssBytes), mib(point.heapUsedBytes), mib(point.heapTotalBytes), mib(point.externalBytes), String(point.fds), String(point.upstreamConnections)]))}`;
}

/** More background load than this before the run makes its figures unreliable. */
const BUSY_BACKGROUND = 0.1;

export function problems(results: Results, info: RunInfo): string[] {
  const lines: string[] = [];
  if (info.backgroundBusy > BUSY_BACKGROUND) {
    lines.push(`- The machine was not idle before the run (${fixed(info.backgroundBusy * 100, 0)} % of all cores busy): other work competed for CPU, so every figure is skewed. Run again on a quiet machine.`);
  }
  const rounds = results.rounds ?? [];
  const closed = [
    ...results.targets.flatMap((run) => [run.json, run.stream, ...run.sweep]),
    ...results.munjaOnly,
    ...rounds.flatMap((round) => [round.direct, round.nginx, round.floor.saturated, round.munja.saturated, round.local]),
    ...(results.fleet?.rounds.map((round) => round.redis) ?? []),
    results.workers?.one,
    results.workers?.two,
  ];
  for (const result of closed) {
    if (result === undefined) continue;
    const name = `${result.target.label} ${result.scenario.id} (${result.connections} conns)`;
    if (result.checkProblem !== undefined) lines.push(`- ${name}: checked response was wrong: ${result.checkProblem}`);
    if (result.load.unexpectedStatuses > 0) lines.push(`- ${name}: ${result.load.unexpectedStatuses} responses with an unexpected status`);
    if (result.load.errors > 0) lines.push(`- ${name}: ${result.load.errors} socket errors or timeouts`);
    if (result.log?.firstProblem !== undefined) lines.push(`- ${name}: Munja logged: \`${result.log.firstProblem}\``);
  }
  const pacedRuns = [
    ...results.targets.flatMap((run) => run.paced.map((paced) => ({ label: run.label, paced }))),
    ...rounds.flatMap((round, index) => [round.floor, round.munja].map((run) => ({ label: `${run.saturated.target.label}, round ${index + 1}`, paced: run.paced }))),
  ];
  for (const { label, paced } of pacedRuns) {
    if (paced === undefined) continue;
    if (paced.gaveUp !== undefined) lines.push(`- ${label} paced ${paced.rate}/s: fell behind (${paced.gaveUp})`);
    if (paced.errors > 0) lines.push(`- ${label} paced ${paced.rate}/s: ${paced.errors} failed requests`);
    if (paced.lateSends > paced.scheduled * 0.01) lines.push(`- ${label} paced ${paced.rate}/s: the generator sent ${paced.lateSends} requests more than 1 ms late (CPU 0 overloaded?)`);
  }
  for (const [index, round] of rounds.entries()) {
    for (const run of [round.floor, round.munja]) {
      const counted = run.allocation;
      if (counted !== undefined && counted.ok < counted.requests) lines.push(`- ${run.saturated.target.label}, round ${index + 1}: ${counted.requests - counted.ok} of the ${counted.requests} requests of the allocation count did not get 200`);
    }
  }
  for (const run of results.targets) {
    if (run.delivery !== undefined && run.delivery.failedStreams > 0) lines.push(`- ${run.label} delivery: ${run.delivery.failedStreams} of ${run.delivery.streams} streams incomplete or failed`);
  }
  for (const stop of info.stops) {
    if (stop.killed || (stop.exit !== 0 && stop.exit !== 'SIGTERM')) lines.push(`- ${stop.name} did not stop cleanly on SIGTERM (exit ${stop.exit})`);
  }
  return lines;
}
