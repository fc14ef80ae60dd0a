// `npm run bench:tracing`: the tracing-cost rounds of the bench alone (bench/tracing-cost.ts),
// printed as a markdown table; BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, … as for run.ts.
// The mock and the load generator run on CPU 0, Munja on CPU 1; every process started is stopped.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunContext } from './closed-loop.ts';
import { say } from './phases.ts';
import { canPin, pinSelf, stopAll } from './processes.ts';
import { clockTicksPerSecond, machineBusyOver } from './proc-stats.ts';
import { readSettings } from './settings.ts';
import { startMock } from './stack.ts';
import { runTracingCost, tracingCostTable } from './tracing-cost.ts';
import { collectVersions } from './run-info.ts';

const settings = readSettings();
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-tracing-'));
try {
  const busy = await machineBusyOver(1_000);
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const mock = await startMock(pinned ? '0' : undefined);
  const cost = await runTracingCost(settings, { tempDir, mockPort: mock.port, cpus: pinned ? '1' : undefined }, context, []);
  say(`\n${tracingCostTable(cost)}\n\nMachine busy before the run: ${Math.round(busy * 100)} %; pinned: ${pinned}; load generator: ${context.tool}.\n`);
} finally {
  await stopAll();
  rmSync(tempDir, { recursive: true, force: true });
}
