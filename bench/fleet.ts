// The fleet part: what the Redis limiter costs and how exactly a fleet keeps a limit.
// - Rounds of fresh processes side by side: Munja on the embedded store, then Munja on Redis (the
//   same non-streaming saturation run), with redis-server's own CPU per gateway request.
// - Admitted against allowed: two instances on one Redis, saturated with one key of a known limit;
//   the bucket starts full, so it allows its capacity plus what refills during the run.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClosedLoopResult, type RunContext } from './closed-loop.ts';
import { runLoad } from './load.ts';
import { closedLoop, say, warmUp } from './phases.ts';
import { cpuNanoseconds } from './proc-stats.ts';
import { runNode, stop, type StopOutcome } from './processes.ts';
import type { Redis } from './redis.ts';
import { chatJson } from './scenarios/index.ts';
import type { Settings } from './settings.ts';
import { startMunja } from './stack.ts';
import { munjaTarget } from './targets.ts';

const MUNJA_CLI = fileURLToPath(new URL('../src/cli/munja.ts', import.meta.url));

export interface FleetRound {
  readonly embedded: ClosedLoopResult;
  readonly redis: ClosedLoopResult;
  /** redis-server's CPU per gateway response during the Redis run, µs. */
  readonly redisServerUs: number;
}

export interface FleetAccuracy {
  readonly instances: number;
  readonly rpm: number;
  readonly seconds: number;
  readonly admitted: number;
  /** Capacity plus the refill over the run. */
  readonly allowed: number;
  readonly refused: number;
}

export interface FleetResults {
  readonly rounds: readonly FleetRound[];
  readonly accuracy: FleetAccuracy;
}

export interface FleetOptions {
  readonly tempDir: string;
  readonly mockPort: number;
  readonly cpus: string | undefined;
  readonly redis: Redis;
}

/** 100 requests a second: far below what the run offers, so the limit binds all along. */
const ACCURACY_RPM = 6_000;

export async function runFleet(settings: Settings, options: FleetOptions, context: RunContext, stops: StopOutcome[]): Promise<FleetResults> {
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections };
  const pinned = options.cpus === undefined ? {} : { cpus: options.cpus };
  const rounds: FleetRound[] = [];
  for (let index = 0; index < settings.rounds; index++) {
    say(`bench: fleet round ${index + 1} of ${settings.rounds}\n`);
    const embeddedMunja = await startMunja({ name: `munja-embedded-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, ...pinned });
    const embeddedTarget = munjaTarget(embeddedMunja);
    await warmUp(embeddedTarget, settings, context);
    const embedded = await closedLoop(chatJson, embeddedTarget, { ...measured, log: embeddedMunja.log }, context);
    stops.push(await stop(embeddedMunja.process));

    const redisMunja = await startMunja({ name: `munja-redis-${index + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, redisUrl: options.redis.url, workers: 1, ...pinned });
    const redisTarget = munjaTarget(redisMunja, 'munja-redis', 'Munja + Redis limiter');
    await warmUp(redisTarget, settings, context);
    const redisCpuBefore = cpuNanoseconds(options.redis.process.pid);
    const redis = await closedLoop(chatJson, redisTarget, { ...measured, log: redisMunja.log }, context);
    const redisServerUs = (cpuNanoseconds(options.redis.process.pid) - redisCpuBefore) / 1_000 / Math.max(1, redis.load.responses);
    say(`bench: redis-server ${redisServerUs.toFixed(1)} µs CPU per gateway request\n`);
    stops.push(await stop(redisMunja.process));
    rounds.push({ embedded, redis, redisServerUs });
  }
  return { rounds, accuracy: await measureAccuracy(settings, options, context, stops) };
}

async function measureAccuracy(settings: Settings, options: FleetOptions, context: RunContext, stops: StopOutcome[]): Promise<FleetAccuracy> {
  const instances = await Promise.all([1, 2].map((index) => startMunja({
    name: `munja-fleet-${index}`, tempDir: options.tempDir, mockPort: options.mockPort, redisUrl: options.redis.url, workers: 1,
    ...(options.cpus === undefined ? {} : { cpus: options.cpus }),
  })));
  const env = { ...process.env, REDIS_URL: options.redis.url, MUNJA_DATA: join(options.tempDir, 'munja-fleet-1', 'data') };
  const created = JSON.parse(await runNode([MUNJA_CLI, 'keys', 'create', '--account', 'accuracy@example.com', '--rpm', String(ACCURACY_RPM), '--json'], env)) as { key: string };
  say(`bench: fleet accuracy, 2 instances, one key of ${ACCURACY_RPM} rpm, ${settings.seconds} s saturated … `);
  const load = { connections: Math.ceil(settings.connections / 2), expectStatus: 200, tempDir: context.tempDir, seconds: settings.seconds, ...(context.loaderCpus === undefined ? {} : { cpus: context.loaderCpus }) };
  const started = performance.now();
  const results = await Promise.all(instances.map((instance) => {
    const request = chatJson.request({ ...munjaTarget(instance), headers: { authorization: `Bearer ${created.key}` } });
    return runLoad(context.tool, request, load);
  }));
  const seconds = (performance.now() - started) / 1_000;
  for (const instance of instances) stops.push(await stop(instance.process));
  const responses = results.reduce((sum, result) => sum + result.responses, 0);
  const refused = results.reduce((sum, result) => sum + result.unexpectedStatuses, 0);
  const admitted = responses - refused;
  const allowed = Math.floor(ACCURACY_RPM + (ACCURACY_RPM * seconds) / 60);
  say(`${admitted} admitted of ${allowed} allowed, ${refused} refused\n`);
  return { instances: instances.length, rpm: ACCURACY_RPM, seconds, admitted, allowed, refused };
}
