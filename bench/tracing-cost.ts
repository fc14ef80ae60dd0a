// What tracing costs: Munja's CPU per non-streaming chat completion with tracing off (the default),
// on with 1 % of requests sampled, and on with all of them, spans exported over OTLP/HTTP to a sink
// in the bench process. Rounds of fresh processes, the three side by side in each, as in rounds.ts:
// on a virtual machine the CPU per request of one configuration moves between runs minutes apart.
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import { fixed, thousands } from './format.ts';
import { startOtlpSink } from './mock/otlp-sink.ts';
import { closedLoop, say, warmUp } from './phases.ts';
import { stop, type StopOutcome } from './processes.ts';
import { chatJson } from './scenarios/index.ts';
import type { Settings } from './settings.ts';
import { startMunja } from './stack.ts';
import { munjaTarget } from './targets.ts';

export interface TracingConfiguration {
  readonly label: string;
  /** OTEL_* settings; empty for tracing off. */
  readonly env: (sinkUrl: string) => Readonly<Record<string, string>>;
}

const exported = (sampler: string, ratio: string) => (sinkUrl: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: ratio,
});

export const TRACING_CONFIGURATIONS: readonly TracingConfiguration[] = [
  { label: 'tracing off (default)', env: () => ({}) },
  { label: 'tracing on, 1 % sampled', env: exported('parentbased_traceidratio', '0.01') },
  { label: 'tracing on, 100 % sampled', env: exported('parentbased_always_on', '1') },
];

export interface TracingCost {
  /** Per configuration, one run per round. */
  readonly runs: ReadonlyArray<{ readonly label: string; readonly results: ClosedLoopResult[] }>;
  readonly exportRequests: number;
  readonly exportBytes: number;
}

export interface TracingCostOptions {
  readonly tempDir: string;
  readonly mockPort: number;
  readonly cpus: string | undefined;
}

export async function runTracingCost(settings: Settings, options: TracingCostOptions, context: RunContext, stops: StopOutcome[]): Promise<TracingCost> {
  const sink = await startOtlpSink();
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections };
  const runs = TRACING_CONFIGURATIONS.map((configuration) => ({ label: configuration.label, results: [] as ClosedLoopResult[] }));
  try {
    for (let round = 0; round < settings.rounds; round++) {
      for (const [index, configuration] of TRACING_CONFIGURATIONS.entries()) {
        say(`bench: tracing cost, round ${round + 1} of ${settings.rounds}: ${configuration.label}\n`);
        const munja = await startMunja({
          name: `munja-tracing-${round + 1}-${index}`, tempDir: options.tempDir, mockPort: options.mockPort, env: configuration.env(sink.url),
          ...(options.cpus === undefined ? {} : { cpus: options.cpus }),
        });
        const target = munjaTarget(munja);
        await warmUp(target, settings, context);
        runs[index]!.results.push(await closedLoop(chatJson, target, { ...measured, log: munja.log }, context));
        stops.push(await stop(munja.process));
      }
    }
  } finally {
    await sink.close();
  }
  return { runs, exportRequests: sink.received.requests, exportBytes: sink.received.bytes };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A markdown table: median and range of CPU µs per request, and throughput, per configuration. */
export function tracingCostTable(cost: TracingCost): string {
  const off = median(cost.runs[0]!.results.map(cpuPerRequestUs));
  const rows = cost.runs.map(({ label, results }) => {
    const cpu = results.map(cpuPerRequestUs);
    const rps = results.map((result) => result.load.requestsPerSecond);
    const cpuMedian = median(cpu);
    return `| ${label} | ${fixed(cpuMedian, 1)} | ${fixed(Math.min(...cpu), 1)} – ${fixed(Math.max(...cpu), 1)} | ${fixed(cpuMedian / off, 2)}× | ${thousands(median(rps))} |`;
  });
  return [
    '| configuration | Munja CPU µs per request (median) | range over rounds | vs off | req/s (median) |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Spans exported: ${thousands(cost.exportRequests)} OTLP requests, ${fixed(cost.exportBytes / 2 ** 20, 1)} MiB. Non-streaming chat completions relayed to the mock upstream, ${cost.runs[0]!.results[0]?.connections ?? '?'} connections, ${cost.runs[0]!.results.length} round(s).`,
  ].join('\n');
}
