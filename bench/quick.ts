// `npm run bench:quick`: the chat path in about a minute, as one table, for a look after a change.
// JSON and streamed completions with autocannon (1 s warm-up, then the measured run): the bench's
// mock upstream called directly, Munja relaying to it, and Munja's local engine; each Munja a fresh
// process with its own data dir. Nothing is pinned and nothing is written: for figures to compare
// or quote, `npm run bench` (docs/benchmarks.md). Exits 1 when a response was not as expected.
//   BENCH_SECONDS [5]       measured seconds per row
//   BENCH_CONNECTIONS [50]  connections
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import { fixed, ms, paddedTable, thousands } from './format.ts';
import { closedLoop, say } from './phases.ts';
import { clockTicksPerSecond } from './proc-stats.ts';
import { benchScratch, stop } from './processes.ts';
import { commitDescription } from './run-info.ts';
import { readSettings } from './settings.ts';
import { chatJson, chatStream, local, localStream, type Target } from './scenarios/index.ts';
import { LOCAL_MODEL, type Munja, startMock, startMunja } from './stack.ts';
import { directTarget, munjaTarget } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const settings = readSettings();
const RUN = { seconds: settings.seconds, warmupSeconds: 1, connections: settings.connections };

function localTarget(munja: Munja): Target {
  const model = () => LOCAL_MODEL;
  return { ...munjaTarget(munja), label: 'Munja, local engine', model, replyModel: model };
}

function row(result: ClosedLoopResult): string[] {
  const { load } = result;
  const failures = load.unexpectedStatuses + load.errors + (result.checkProblem === undefined ? 0 : 1);
  return [
    result.scenario.workload,
    result.target.label,
    thousands(load.requestsPerSecond),
    ms(load.latencyMs.p50),
    ms(load.latencyMs.p99),
    fixed(cpuPerRequestUs(result), 0),
    failures === 0 ? '0' : `${failures}${result.checkProblem === undefined ? '' : ` (check: ${result.checkProblem})`}`,
  ];
}

async function main(): Promise<number> {
  const began = performance.now();
  const { tempDir, cleanUp } = benchScratch('munja-bench-quick-');
  try {
    const context: RunContext = { tool: 'autocannon', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: undefined };
    const results: ClosedLoopResult[] = [];
    const mock = await startMock(undefined);
    const direct = directTarget(mock.port);
    for (const scenario of [chatJson, chatStream]) results.push(await closedLoop(scenario, direct, RUN, context));

    const relay = await startMunja({ name: 'munja-relay', tempDir, mockPort: mock.port });
    for (const scenario of [chatJson, chatStream]) results.push(await closedLoop(scenario, munjaTarget(relay, 'munja', 'Munja → mock upstream'), RUN, context));
    await stop(relay.process);

    const engine = await startMunja({ name: 'munja-local', tempDir, mockPort: mock.port, localModel: true });
    for (const scenario of [local, localStream]) results.push(await closedLoop(scenario, localTarget(engine), RUN, context));
    await stop(engine.process);

    const header = ['workload', 'path', 'req/s', 'p50 ms', 'p99 ms', 'Munja CPU µs/req', 'failures'];
    say(`\n${paddedTable(header, results.map(row))}\n\n`);
    say(`commit ${await commitDescription(ROOT)}, Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; `
      + `autocannon, ${RUN.connections} connections, ${RUN.seconds} s each after ${RUN.warmupSeconds} s of warm-up, unpinned; `
      + `${Math.round((performance.now() - began) / 1000)} s in all. The load generator shares the machine with what it measures: `
      + 'compare runs on one machine, and use `npm run bench` for figures to quote.\n');
    return results.every((result) => row(result).at(-1) === '0') ? 0 : 1;
  } finally {
    await cleanUp();
  }
}

process.exitCode = await main();
