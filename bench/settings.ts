// Settings of a run, from the environment (documented at the top of run.ts and in the report).

function integer(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function integers(name: string, fallback: readonly number[], min: number, max: number): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((value) => !Number.isInteger(value) || value < min || value > max)) {
    throw new Error(`${name} must be a comma-separated list of integers from ${min} to ${max}`);
  }
  return values;
}

const PARTS = ['nginx', 'portkey', 'paced', 'delivery', 'sweep', 'rounds', 'local', 'protocols', 'budgets', 'rejects', 'tracing', 'cache', 'redis', 'workers', 'streams', 'soak', 'engines'] as const;
export type Part = (typeof PARTS)[number];

export interface Settings {
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Load sent to each target once before anything is measured on it (JIT, pools, caches). */
  readonly targetWarmupSeconds: number;
  readonly connections: number;
  readonly pacedSeconds: number;
  readonly rates: readonly number[];
  readonly sweep: readonly number[];
  readonly sweepSeconds: number;
  readonly deliverySeconds: number;
  /** Rounds of fresh processes side by side (nginx, the floor relay, Munja). */
  readonly rounds: number;
  /** Paced seconds at 1,000 req/s for the floor relay and for Munja in each round (0: none). */
  readonly roundPacedSeconds: number;
  /** Requests counted by the allocation probe for the floor relay and for Munja in each round (0: none). */
  readonly allocationRequests: number;
  readonly streams: number;
  readonly streamsHoldSeconds: number;
  readonly soakSeconds: number;
  readonly soakConcurrency: number;
  /** Seconds of arrivals per routing strategy in the engine-fleet scenario. */
  readonly engineFleetSeconds: number;
  readonly skip: ReadonlySet<Part>;
}

export function readSettings(): Settings {
  const skip = (process.env.BENCH_SKIP ?? '').split(',').map((part) => part.trim()).filter((part) => part !== '');
  const unknown = skip.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`BENCH_SKIP: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  return {
    seconds: integer('BENCH_SECONDS', 5, 1, 600),
    warmupSeconds: integer('BENCH_WARMUP_SECONDS', 1, 0, 600),
    targetWarmupSeconds: integer('BENCH_TARGET_WARMUP_SECONDS', 5, 0, 600),
    connections: integer('BENCH_CONNECTIONS', 50, 1, 5_000),
    pacedSeconds: integer('BENCH_PACED_SECONDS', 10, 1, 600),
    rates: integers('BENCH_RATES', [1000, 5000], 1, 100_000),
    sweep: integers('BENCH_SWEEP', [1, 10, 50, 100, 200], 1, 5_000),
    sweepSeconds: integer('BENCH_SWEEP_SECONDS', 2, 1, 600),
    deliverySeconds: integer('BENCH_DELIVERY_SECONDS', 4, 1, 600),
    rounds: integer('BENCH_ROUNDS', 5, 1, 50),
    roundPacedSeconds: integer('BENCH_ROUND_PACED_SECONDS', 5, 0, 600),
    allocationRequests: integer('BENCH_ALLOCATION_REQUESTS', 10_000, 0, 10_000_000),
    streams: integer('BENCH_STREAMS', 10_000, 1, 100_000),
    streamsHoldSeconds: integer('BENCH_STREAMS_HOLD_SECONDS', 5, 1, 3_600),
    soakSeconds: integer('BENCH_SOAK_SECONDS', 60, 1, 24 * 3_600),
    soakConcurrency: integer('BENCH_SOAK_CONCURRENCY', 50, 1, 5_000),
    engineFleetSeconds: integer('BENCH_FLEET_SECONDS', 16, 4, 3_600),
    skip: new Set(skip as Part[]),
  };
}
