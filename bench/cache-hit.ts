// `npm run bench:cache`: what a response-cache hit costs (bench/cache-cost.ts), alone: rounds of a
// fresh Munja (BENCH_ROUNDS, default 3), BENCH_SECONDS, BENCH_CONNECTIONS as for run.ts; `npm run
// bench` runs the same and puts it in bench/REPORT.md. The mock and the load generator run on
// CPU 0, Munja and nginx on CPU 1. Prints a markdown table; every process it starts is stopped by its PID.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheCostTable, runCacheCost } from './cache-cost.ts';
import type { RunContext } from './closed-loop.ts';
import { say } from './phases.ts';
import { canPin, pinSelf, type StopOutcome, stopAll } from './processes.ts';
import { clockTicksPerSecond, machineBusyOver } from './proc-stats.ts';
import { collectVersions } from './run-info.ts';
import { readSettings } from './settings.ts';
import { startMock } from './stack.ts';

const settings = readSettings();
const rounds = process.env.BENCH_ROUNDS === undefined ? 3 : settings.rounds;
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-cache-'));
try {
  const busy = await machineBusyOver(1_000);
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const mock = await startMock(pinned ? '0' : undefined);
  const stops: StopOutcome[] = [];
  const cost = await runCacheCost(settings, { tempDir, mockPort: mock.port, cpus: pinned ? '1' : undefined, rounds }, context, stops);
  say(`\n${cacheCostTable(cost)}\nMachine busy before the run: ${Math.round(busy * 100)} %; pinned: ${pinned}; load generator: ${context.tool}.\n`);
} finally {
  await stopAll();
  rmSync(tempDir, { recursive: true, force: true });
}
