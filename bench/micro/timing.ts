// A plain timing loop for micro-benchmarks: calibrate the batch size, warm up (so the function
// is optimised), then time several rounds of the same batch and keep the median.

export interface TimingOptions {
  /** Rounds timed after warm-up; the median is reported. */
  readonly rounds?: number;
  /** Target duration of one round (the batch size is calibrated to it). */
  readonly roundMs?: number;
  readonly warmupMs?: number;
}

export interface Timing {
  readonly name: string;
  readonly iterations: number;
  readonly rounds: number;
  readonly medianNs: number;
  readonly minNs: number;
  readonly maxNs: number;
}

/** Results are written here so the optimiser cannot drop the work that produced them. */
export let sink: unknown;

type Run = (iterations: number) => Promise<number> | number;

const now = () => Number(process.hrtime.bigint());

function syncRun(fn: () => unknown): Run {
  return (iterations) => {
    const start = now();
    for (let index = 0; index < iterations; index++) sink = fn();
    return now() - start;
  };
}

function asyncRun(fn: () => Promise<unknown>): Run {
  return async (iterations) => {
    const start = now();
    for (let index = 0; index < iterations; index++) sink = await fn();
    return now() - start;
  };
}

async function time(name: string, run: Run, options: TimingOptions): Promise<Timing> {
  const rounds = options.rounds ?? 11;
  const roundNs = (options.roundMs ?? 60) * 1e6;
  const warmupNs = (options.warmupMs ?? 300) * 1e6;
  // Warm up with growing batches; the last one tells the cost per op for the calibration.
  let iterations = 16;
  let spent = 0;
  let lastNs = 0;
  while (spent < warmupNs) {
    lastNs = await run(iterations);
    spent += lastNs;
    if (lastNs < roundNs / 4) iterations *= 2;
  }
  iterations = Math.max(1, Math.round((roundNs * iterations) / Math.max(lastNs, 1)));
  const perOp: number[] = [];
  for (let round = 0; round < rounds; round++) perOp.push((await run(iterations)) / iterations);
  perOp.sort((a, b) => a - b);
  return { name, iterations, rounds, medianNs: perOp[Math.floor(rounds / 2)]!, minNs: perOp[0]!, maxNs: perOp[rounds - 1]! };
}

export function timeSync(name: string, fn: () => unknown, options: TimingOptions = {}): Promise<Timing> {
  return time(name, syncRun(fn), options);
}

export function timeAsync(name: string, fn: () => Promise<unknown>, options: TimingOptions = {}): Promise<Timing> {
  return time(name, asyncRun(fn), options);
}

const format = (ns: number) => (ns >= 1e5 ? `${(ns / 1e3).toFixed(0)} µs` : ns >= 1e4 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);

export function timingTable(timings: readonly Timing[]): string {
  const rows = timings.map((timing) => [
    timing.name,
    format(timing.medianNs),
    `${format(timing.minNs)} – ${format(timing.maxNs)}`,
    Math.round(1e9 / timing.medianNs).toLocaleString('en-US'),
    `${timing.rounds} × ${timing.iterations.toLocaleString('en-US')}`,
  ]);
  const header = ['operation', 'median per op', 'range of rounds', 'ops/s (median)', 'rounds × iterations'];
  return [header, header.map((_, index) => (index === 0 ? '---' : '---:')), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
