// The fleet part of bench/REPORT.md: Munja on Redis against Munja on the embedded store, round by
// round, redis-server's own CPU per gateway request, and what a saturated fleet admits against
// what the limit allows; and the fleet targets judged on them.
import { cpuPerRequestUs } from './closed-loop.ts';
import type { FleetResults } from './fleet.ts';
import { fixed, ratio, table, thousands } from './format.ts';
import type { Goal } from './goals.ts';
import { spreadOf } from './rounds.ts';

const redisToEmbeddedCpu = (fleet: FleetResults) => fleet.rounds.map((round) => cpuPerRequestUs(round.redis) / cpuPerRequestUs(round.embedded));
const redisToEmbeddedRate = (fleet: FleetResults) => fleet.rounds.map((round) => round.redis.load.requestsPerSecond / round.embedded.load.requestsPerSecond);

export function fleetTable(fleet: FleetResults | undefined): string {
  if (fleet === undefined) return 'Not run.';
  const rows = fleet.rounds.map((round, index) => [
    String(index + 1),
    fixed(cpuPerRequestUs(round.embedded), 0),
    `${fixed(cpuPerRequestUs(round.redis), 0)} (${ratio(cpuPerRequestUs(round.redis) / cpuPerRequestUs(round.embedded))})`,
    thousands(round.embedded.load.requestsPerSecond),
    `${thousands(round.redis.load.requestsPerSecond)} (${ratio(round.redis.load.requestsPerSecond / round.embedded.load.requestsPerSecond)})`,
    fixed(round.redisServerUs, 1),
  ]);
  const over = (values: readonly number[], show: (value: number) => string) => {
    const spread = spreadOf(values);
    return spread === undefined ? '—' : `${show(spread.median)} (${show(spread.min)}–${show(spread.max)})`;
  };
  rows.push([
    '**median (range)**',
    over(fleet.rounds.map((round) => cpuPerRequestUs(round.embedded)), (value) => fixed(value, 0)),
    over(redisToEmbeddedCpu(fleet), ratio),
    over(fleet.rounds.map((round) => round.embedded.load.requestsPerSecond), thousands),
    over(redisToEmbeddedRate(fleet), ratio),
    over(fleet.rounds.map((round) => round.redisServerUs), (value) => fixed(value, 1)),
  ]);
  const { accuracy } = fleet;
  return `${table(['round', 'embedded µs/req', 'Redis µs/req (× embedded)', 'embedded req/s', 'Redis req/s (× embedded)', 'redis-server µs per gateway request'], rows)}

Admitted against allowed: ${accuracy.instances} instances on one Redis, saturated for ${fixed(accuracy.seconds, 1)} s with one key of ${thousands(accuracy.rpm)} requests per minute (its bucket full at the start, so it allows its capacity plus the refill): **${thousands(accuracy.admitted)} admitted of ${thousands(accuracy.allowed)} allowed** (${thousands(accuracy.refused)} refused with 429).`;
}

export function fleetGoals(fleet: FleetResults | undefined): Goal[] {
  const judge = (ok: boolean | undefined): Goal['verdict'] => (ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL');
  const cpu = fleet === undefined ? undefined : spreadOf(redisToEmbeddedCpu(fleet));
  const rate = fleet === undefined ? undefined : spreadOf(redisToEmbeddedRate(fleet));
  const server = fleet === undefined ? undefined : spreadOf(fleet.rounds.map((round) => round.redisServerUs));
  const spreadText = (spread: ReturnType<typeof spreadOf>, show: (value: number) => string) => spread === undefined ? 'not run' : `median ${show(spread.median)} (${show(spread.min)}–${show(spread.max)})`;
  const accuracy = fleet?.accuracy;
  return [
    { goal: 'Munja on Redis: CPU per request ≤ 1.15× on the embedded store', measured: spreadText(cpu, ratio), verdict: judge(cpu && cpu.median <= 1.15) },
    { goal: 'Munja on Redis: throughput ≥ 0.85× on the embedded store', measured: spreadText(rate, ratio), verdict: judge(rate && rate.median >= 0.85) },
    { goal: 'redis-server CPU ≤ 10 µs per gateway request', measured: spreadText(server, (value) => `${fixed(value, 1)} µs`), verdict: judge(server && server.median <= 10) },
    {
      goal: 'A saturated fleet never admits more than the limit allows',
      measured: accuracy === undefined ? 'not run' : `${thousands(accuracy.admitted)} admitted of ${thousands(accuracy.allowed)} allowed (${fixed((100 * (accuracy.allowed - accuracy.admitted)) / accuracy.allowed, 2)} % short)`,
      verdict: judge(accuracy && accuracy.admitted <= accuracy.allowed),
    },
  ];
}
