// `npm run bench:cache`: what a response-cache hit costs (bench/cache-cost.ts), alone: rounds of a
// fresh Munja (BENCH_ROUNDS, default 3), BENCH_SECONDS, BENCH_CONNECTIONS as for run.ts; `npm run
// bench` runs the same and puts it in bench/REPORT.md. The mock and the load generator run on
// CPU 0, Munja and nginx on CPU 1. Prints a markdown table; every process it starts is stopped by its PID.
import { cacheCostTable, runCacheCost } from './cache-cost.ts';
import { readSettings } from './settings.ts';
import { runPartAlone } from './standalone-part.ts';

const settings = readSettings();
const rounds = process.env.BENCH_ROUNDS === undefined ? 3 : settings.rounds;
await runPartAlone('munja-bench-cache-', async (place, context) => cacheCostTable(await runCacheCost(settings, { ...place, rounds }, context, [])));
