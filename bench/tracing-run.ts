// `npm run bench:tracing`: the tracing-cost rounds of the bench alone (bench/tracing-cost.ts),
// printed as a markdown table; BENCH_ROUNDS, BENCH_SECONDS, BENCH_CONNECTIONS, … as for run.ts.
// The mock and the load generator run on CPU 0, Munja on CPU 1; every process started is stopped.
import { readSettings } from './settings.ts';
import { runPartAlone } from './standalone-part.ts';
import { runTracingCost, tracingCostTable } from './tracing-cost.ts';

const settings = readSettings();
await runPartAlone('munja-bench-tracing-', async (place, context) => tracingCostTable(await runTracingCost(settings, place, context, [])));
