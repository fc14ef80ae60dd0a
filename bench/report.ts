// bench/REPORT.md: settings, one row per scenario, and the Munja/direct ratios.
import type { LoadResult } from './load.ts';
import type { LogTally } from './munja-log.ts';
import type { StopOutcome } from './processes.ts';
import type { Machine } from './proc-stats.ts';
import type { Scenario } from './scenarios/index.ts';

export interface ScenarioResult {
  readonly scenario: Scenario;
  /** The single checked response: its status and the problem found, if any. */
  readonly checkStatus: number;
  readonly checkProblem: string | undefined;
  readonly load: LoadResult;
  /** CPU seconds used during the measured run; unattributed: busy time none of our processes accounts for. */
  readonly cpuSeconds: { readonly munja: number; readonly mock: number; readonly loader: number; readonly unattributed: number };
  /** Busy share of all the machine's cores during the measured run (0–1), whoever used them. */
  readonly machineBusy: number;
  readonly munjaRssBytes: number;
  readonly munjaLog: LogTally;
}

export interface RunInfo {
  readonly date: string;
  readonly machine: Machine;
  readonly node: string;
  readonly commit: string;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly munjaStartRssBytes: number;
  /** Busy share of all cores during one second before anything started: other work on the machine. */
  readonly backgroundBusy: number;
  readonly wallSeconds: number;
  readonly stops: readonly StopOutcome[];
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const thousands = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');
const ms = (value: number) => fixed(value, value < 10 ? 2 : 1);
const percent = (seconds: number, wall: number) => `${fixed((seconds / wall) * 100, 0)} %`;
const perRequest = (seconds: number, responses: number) => (responses > 0 ? fixed((seconds * 1e6) / responses, 0) : '—');
const counts = (record: Readonly<Record<string, number>>) =>
  Object.entries(record).map(([key, count]) => `${key}: ${count}`).join(', ') || '—';

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const align = header.map((_, index) => (index === 0 ? '---' : '---:'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function unexpected(result: ScenarioResult): number {
  return result.load.responses - (result.load.statuses[String(result.scenario.expectStatus)] ?? 0);
}

export function mainTable(results: readonly ScenarioResult[]): string {
  return table(
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'responses', 'expected status', 'other statuses', 'socket errors', 'checked response'],
    results.map((result) => [
      `${result.scenario.id} — ${result.scenario.workload}`,
      thousands(result.load.requestsPerSecond),
      ms(result.load.latencyMs.p50),
      ms(result.load.latencyMs.p99),
      thousands(result.load.responses),
      String(result.scenario.expectStatus),
      unexpected(result) === 0 ? '0' : `${unexpected(result)} (${counts(result.load.statuses)})`,
      String(result.load.errors + result.load.timeouts),
      result.checkProblem === undefined ? 'ok' : `**${result.checkStatus}: ${result.checkProblem}**`,
    ]),
  );
}

export function resourceTable(results: readonly ScenarioResult[]): string {
  return table(
    ['scenario', 'Munja CPU µs/req', 'mock CPU µs/req', 'Munja CPU', 'mock CPU', 'load generator CPU', 'unattributed CPU', 'machine busy', 'Munja RSS MiB', 'Munja request log (status: lines)'],
    results.map(({ scenario, load, cpuSeconds, machineBusy, munjaRssBytes, munjaLog }) => [
      scenario.id,
      scenario.target === 'munja' ? perRequest(cpuSeconds.munja, load.responses) : '—',
      scenario.id.startsWith('chat-') ? perRequest(cpuSeconds.mock, load.responses) : '—',
      percent(cpuSeconds.munja, load.seconds),
      percent(cpuSeconds.mock, load.seconds),
      percent(cpuSeconds.loader, load.seconds),
      percent(cpuSeconds.unattributed, load.seconds),
      `${fixed(machineBusy * 100, 0)} %`,
      fixed(munjaRssBytes / 1024 / 1024, 0),
      counts(munjaLog.requestStatuses),
    ]),
  );
}

export function ratioTable(results: readonly ScenarioResult[]): string {
  const byId = new Map(results.map((result) => [result.scenario.id, result]));
  const rows = results.flatMap((result) => {
    const base = result.scenario.baseline === undefined ? undefined : byId.get(result.scenario.baseline);
    if (base === undefined) return [];
    const { load } = result;
    return [[
      result.scenario.workload,
      `${result.scenario.target} / ${base.scenario.target}`,
      `${thousands(load.requestsPerSecond)} / ${thousands(base.load.requestsPerSecond)}`,
      `**${fixed(load.requestsPerSecond / base.load.requestsPerSecond, 2)}**`,
      fixed(load.latencyMs.p50 / base.load.latencyMs.p50, 2),
      fixed(load.latencyMs.p99 / base.load.latencyMs.p99, 2),
      `+${ms(load.latencyMs.p50 - base.load.latencyMs.p50)}`,
    ]];
  });
  return table(['workload', 'target / baseline', 'req/s', 'req/s ratio', 'p50 ratio', 'p99 ratio', 'p50 added ms'], rows);
}

/** More background load than this before the run makes its figures unreliable. */
const BUSY_BACKGROUND = 0.1;
/** Unattributed CPU (share of one core) above what loopback networking takes: other work was running. */
const BUSY_UNATTRIBUTED = 0.3;

export function problems(results: readonly ScenarioResult[], info: RunInfo): string[] {
  const lines: string[] = [];
  if (info.backgroundBusy > BUSY_BACKGROUND) {
    lines.push(`- The machine was not idle before the run (${fixed(info.backgroundBusy * 100, 0)} % of all cores busy): other work competed for CPU, so every figure is skewed. Run again on a quiet machine.`);
  }
  for (const result of results) {
    if (result.checkProblem !== undefined) lines.push(`- ${result.scenario.id}: checked response was wrong: ${result.checkProblem}`);
    if (unexpected(result) > 0) lines.push(`- ${result.scenario.id}: ${unexpected(result)} responses with an unexpected status`);
    if (result.load.errors > 0) lines.push(`- ${result.scenario.id}: ${result.load.errors} socket errors (${result.load.timeouts} timeouts)`);
    const unattributed = result.cpuSeconds.unattributed / result.load.seconds;
    if (unattributed > BUSY_UNATTRIBUTED) {
      lines.push(`- ${result.scenario.id}: ${fixed(unattributed * 100, 0)} % of a core busy outside our processes: other work probably competed, so its figures are skewed`);
    }
    if (result.munjaLog.firstProblem !== undefined) lines.push(`- ${result.scenario.id}: Munja logged: \`${result.munjaLog.firstProblem}\``);
  }
  for (const stop of info.stops) {
    if (stop.killed || (stop.exit !== 0 && stop.exit !== 'SIGTERM')) lines.push(`- ${stop.name} did not stop cleanly on SIGTERM (exit ${stop.exit})`);
  }
  return lines;
}

export function renderReport(results: readonly ScenarioResult[], info: RunInfo): string {
  const { machine } = info;
  const found = problems(results, info);
  return `# Munja benchmark report

Generated by \`npm run bench\` (\`bench/run.ts\`); every run rewrites this file.

- Date: ${info.date}
- Machine: ${machine.cpuModel}, ${machine.cores} logical cores, ${machine.memoryGiB} GiB RAM; ${machine.os}, Linux ${machine.kernel}, glibc ${machine.glibc}
- Node: ${info.node}
- Munja commit: ${info.commit}
- Settings: ${info.seconds} s measured per scenario after ${info.warmupSeconds} s warm-up, ${info.connections} connections, no pipelining (\`BENCH_SECONDS\`, \`BENCH_WARMUP_SECONDS\`, \`BENCH_CONNECTIONS\`); whole run ${fixed(info.wallSeconds, 0)} s
- Background load before the run: ${fixed(info.backgroundBusy * 100, 0)} % of all cores busy during 1 s (should be near 0)
- Munja RSS when ready, before any request: ${fixed(info.munjaStartRssBytes / 1024 / 1024, 0)} MiB

## Throughput and latency

${mainTable(results)}

## Munja compared with calling the upstream directly

${ratioTable(results)}

## CPU and memory

${resourceTable(results)}

## Problems seen

${found.length === 0 ? 'None: every checked response was right, every response had the expected status, no socket errors, nothing logged above info, and every process stopped on SIGTERM.' : found.join('\n')}

## How to read this

- The load generator (autocannon, one thread), the mock upstream and Munja all run on this one
  machine and share its ${machine.cores} cores, unpinned. Absolute numbers are therefore lower than
  on a machine where each gets its own cores, and they move with whatever else runs. **The ratios
  are what matter**: Munja against the same mock called directly, in the same run.
- "direct" is the mock upstream (a Node \`http\` server imitating vLLM) called without Munja. Through
  Munja, the mock does the same work, so the difference is what the gateway adds: auth, parsing and
  validation, prompt token counting, rate limiting, the relay, usage accounting and one log line per request.
  On shared cores a relay run also takes CPU from the mock, so the req/s ratio understates Munja's
  own speed; "Munja CPU µs/req" is the cost that does not depend on that.
- Latency is per request, measured by the load generator with ${info.connections} requests always in
  flight (closed loop): at saturation it mostly reflects queueing, so compare it between rows, not with
  a single idle request. p50/p99 are exact over all responses of the measured run.
- CPU is utime + stime from \`/proc/<pid>/stat\` (all threads, including the engine's worker threads)
  over the measured run; 100 % is one core. "machine busy" is the non-idle share of all cores from
  \`/proc/stat\` (100 % = every core busy, by anyone): below 100 % the run was not CPU-bound.
  "unattributed" is the busy time no process of ours accounts for: the kernel's loopback networking
  (softirq) and any other work on the machine. RSS is VmRSS at the end of the scenario.
- The request log column counts Munja's per-request log lines for the measured run: status 499 is a request
  still in flight when the load generator stopped (it closes its connections at the end).
- Each scenario's request is first sent once and its whole response checked (status, body shape,
  model id, stream chunks and \`[DONE]\`); under load only the status is counted.
`;
}
