// `npm run bench`: Munja side by side with a direct baseline, nginx and the Portkey gateway, then
// Munja alone (rejections, the fleet on Redis against the embedded store, two workers, many open
// streams, a soak, routing strategies over a fleet of simulated engines). The mock
// upstream and the load generators run on CPU 0, the proxy under test alone on CPU 1. Rewrites
// bench/REPORT.md and the plots in docs/bench/. Every process it starts is stopped by its PID.
// Peers are installed by bench/setup.sh; a missing one is skipped and the report says so.
//
// Settings (env), defaults in brackets; the default run takes about 23 minutes:
//   BENCH_SECONDS [5]            measured seconds per closed-loop run (saturation, streaming, rejects)
//   BENCH_WARMUP_SECONDS [1]     warm-up before each closed-loop run
//   BENCH_TARGET_WARMUP_SECONDS [5]  load each target gets before its first measurement (half JSON, half streams)
//   BENCH_CONNECTIONS [50]       connections of the closed-loop runs
//   BENCH_RATES [1000,5000]      paced (open-loop) rates, requests per second
//   BENCH_PACED_SECONDS [10]     measured seconds per paced rate
//   BENCH_SWEEP [1,10,50,100,200] connections for the throughput plot; BENCH_SWEEP_SECONDS [2] each
//   BENCH_DELIVERY_SECONDS [4]   paced, time-stamped streams per target (delivery latency)
//   BENCH_ROUNDS [5]             rounds of fresh processes side by side: nginx, the floor relay, Munja,
//                                Munja with the local engine; and of the fleet part: Munja embedded, on Redis
//   BENCH_ROUND_PACED_SECONDS [5]  paced 1,000 req/s per round for the floor relay and Munja (after 1 s); 0: none
//   BENCH_ALLOCATION_REQUESTS [10000]  requests per round whose V8 heap allocation is counted, floor and Munja; 0: none
//   BENCH_STREAMS [10000]        concurrent open streams wanted; BENCH_STREAMS_HOLD_SECONDS [5]
//   BENCH_SOAK_SECONDS [60]      soak length (600 for the 10-minute soak); BENCH_SOAK_CONCURRENCY [50]
//   BENCH_FLEET_SECONDS [16]     arrivals per routing strategy in the engine-fleet scenario (bench/fleet/)
//   BENCH_SKIP                   comma-separated parts to leave out: nginx, portkey, paced, delivery,
//                                sweep, rounds, local (the local engine in the rounds), rejects, tracing,
//                                cache (a response-cache hit against the relayed request and nginx's
//                                static file, BENCH_ROUNDS rounds), redis, workers, streams, soak,
//                                engines (the engine-fleet scenario)
// (`npm run bench:tracing` runs the tracing-cost rounds alone: bench/tracing-run.ts;
// `npm run bench:cache` the response-cache rounds alone: bench/cache-hit.ts;
// `npm run bench:allocation` the allocation count alone, also on another checkout: bench/allocation/run.ts;
// `npm run bench:profile` where a request's CPU goes, Munja against the floor: bench/profile/run.ts)
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunContext } from './closed-loop.ts';
import { runCacheCost } from './cache-cost.ts';
import { runFleet } from './fleet.ts';
import { runEngineFleet } from './fleet/fleet-run.ts';
import { runManyStreams } from './many-streams.ts';
import { type Peer, startNginx } from './peer/nginx.ts';
import { startPortkey } from './peer/portkey.ts';
import { closedLoop, measureTarget, say, type TargetRun, warmUp } from './phases.ts';
import { writePlots } from './plots.ts';
import { benchScratch, canPin, pinSelf, type StopOutcome, stop, stopAll } from './processes.ts';
import { clockTicksPerSecond, describeMachine, machineBusyOver, machineTicks, stealShare } from './proc-stats.ts';
import { collectVersions, commitDescription, type RunInfo } from './run-info.ts';
import { renderReport, type Results } from './report.ts';
import { treeRssBytes } from './resource-watch.ts';
import { startRedis } from './redis.ts';
import { runRounds } from './rounds.ts';
import { chatJson, models, reject400, reject401, reject429, type Target } from './scenarios/index.ts';
import { readSettings } from './settings.ts';
import { runSoak } from './soak.ts';
import { runTracingCost } from './tracing-cost.ts';
import { startMock, startMunja } from './stack.ts';
import { directTarget, munjaTarget, nginxTarget, portkeyTarget } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOADER_CPU = '0';
const PROXY_CPU = '1';
const BOTH_CPUS = '0,1';

async function main(): Promise<void> {
  const began = performance.now();
  const settings = readSettings();
  const { tempDir, cleanUp } = benchScratch('munja-bench-');

  try {
    // Other work on the machine skews every figure: measure it before starting anything (git included).
    const backgroundBusy = await machineBusyOver(1_000);
    const ticksAtStart = machineTicks();
    const [ticksPerSecond, commit, versions] = await Promise.all([clockTicksPerSecond(), commitDescription(ROOT), collectVersions()]);
    const pinned = (await canPin()) && (await pinSelf(LOADER_CPU));
    const cpu = (cpus: string) => (pinned ? cpus : undefined);
    const tool = versions.wrk === undefined ? 'autocannon' : 'wrk';
    const context: RunContext = { tool, tempDir, ticksPerSecond, loaderCpus: cpu(LOADER_CPU) };
    const stops: StopOutcome[] = [];
    const results: Results = { targets: [], munjaOnly: [], notes: [] };

    const mock = await startMock(cpu(LOADER_CPU));
    say(`bench: mock upstream pid ${mock.process.pid} port ${mock.port}; load generator: ${tool}; pinned: ${pinned}\n`);
    results.targets.push(await measureTarget(directTarget(mock.port), settings, context));

    const skippedRun = (name: TargetRun['name'], label: string, why: string): TargetRun => {
      say(`bench: ${label} skipped: ${why}\n`);
      return { name, label, skipped: why, paced: [], sweep: [] };
    };
    // nginx keeps running for the rounds below; it is one steady process.
    let nginx: Peer | undefined;
    let nginxForRounds: Target | undefined;
    if (settings.skip.has('nginx')) results.targets.push(skippedRun('nginx', 'nginx', 'BENCH_SKIP'));
    else {
      const started = await startNginx(tempDir, mock.port, cpu(PROXY_CPU), 20_000);
      if (typeof started === 'string') results.targets.push(skippedRun('nginx', 'nginx', started));
      else {
        nginx = started;
        const target = nginxTarget(started.port, started.version, started.process.pid);
        const run = await measureTarget(target, settings, context)
          .catch((error: unknown) => skippedRun('nginx', target.label, `failed: ${(error as Error).message}`));
        results.targets.push(run);
        if (run.skipped === undefined) nginxForRounds = target;
      }
    }
    if (settings.skip.has('portkey')) results.targets.push(skippedRun('portkey', 'Portkey gateway', 'BENCH_SKIP'));
    else {
      const portkey = await startPortkey(cpu(PROXY_CPU));
      if (typeof portkey === 'string') results.targets.push(skippedRun('portkey', 'Portkey gateway', portkey));
      else {
        results.targets.push(await measureTarget(portkeyTarget(portkey.port, portkey.version, portkey.process.pid, mock.port), settings, context)
          .catch((error: unknown) => skippedRun('portkey', `Portkey gateway ${portkey.version}`, `failed: ${(error as Error).message}`)));
        stops.push(await stop(portkey.process));
      }
    }

    const munja = await startMunja({ name: 'munja', tempDir, mockPort: mock.port, ...(pinned ? { cpus: PROXY_CPU } : {}) });
    results.munjaIdleRssBytes = treeRssBytes(munja.process.pid);
    const target = munjaTarget(munja);
    results.targets.push(await measureTarget(target, settings, context, munja.log));
    const own = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, log: munja.log };
    for (const scenario of settings.skip.has('rejects') ? [] : [models, reject400, reject401, reject429]) {
      results.munjaOnly.push(await closedLoop(scenario, target, own, context));
    }
    stops.push(await stop(munja.process));
    if (!settings.skip.has('rounds')) {
      results.rounds = await runRounds(settings, { tempDir, mockPort: mock.port, cpus: cpu(PROXY_CPU), direct: directTarget(mock.port), nginx: nginxForRounds }, context, stops);
    }
    if (nginx !== undefined) stops.push(await stop(nginx.process));
    if (!settings.skip.has('tracing')) {
      results.tracing = await runTracingCost(settings, { tempDir, mockPort: mock.port, cpus: cpu(PROXY_CPU) }, context, stops);
    }
    if (!settings.skip.has('cache')) {
      results.cache = await runCacheCost(settings, { tempDir, mockPort: mock.port, cpus: cpu(PROXY_CPU), rounds: settings.rounds }, context, stops);
    }

    if (!settings.skip.has('redis') || !settings.skip.has('workers')) {
      const redis = await startRedis(cpu(LOADER_CPU));
      if (typeof redis === 'string') results.notes.push(`Redis runs skipped: ${redis}`);
      else {
        results.redisVersion = redis.version;
        if (!settings.skip.has('redis')) {
          results.fleet = await runFleet(settings, { tempDir, mockPort: mock.port, cpus: cpu(PROXY_CPU), redis }, context, stops);
        }
        if (!settings.skip.has('workers')) {
          // Both workers' runs float over both cores, as do wrk and Munja; the mock stays on CPU 0.
          const floating: RunContext = { ...context, loaderCpus: cpu(BOTH_CPUS) };
          const runs = [];
          for (const workers of [1, 2]) {
            const instance = await startMunja({ name: `munja-workers-${workers}`, tempDir, mockPort: mock.port, redisUrl: redis.url, workers, ...(pinned ? { cpus: BOTH_CPUS } : {}) });
            const workersTarget = munjaTarget(instance, 'munja-redis', `Munja, ${workers} worker${workers > 1 ? 's' : ''}`);
            await warmUp(workersTarget, settings, floating);
            runs.push(await closedLoop(chatJson, workersTarget, { ...own, log: instance.log }, floating));
            stops.push(await stop(instance.process));
          }
          results.workers = { one: runs[0]!, two: runs[1]! };
        }
        stops.push(await stop(redis.process));
      }
    }

    if (!settings.skip.has('streams')) {
      // 500 streams per key: well under Munja's per-key in-flight cap.
      const extraKeys = Math.ceil(settings.streams / 500) - 1;
      const instance = await startMunja({ name: 'munja-streams', tempDir, mockPort: mock.port, extraKeys, ...(pinned ? { cpus: PROXY_CPU } : {}) });
      say(`bench: munja ${settings.streams} concurrent streams … `);
      results.manyStreams = await runManyStreams(munjaTarget(instance), { wanted: settings.streams, perSecond: 1_000, holdSeconds: settings.streamsHoldSeconds });
      say(`${results.manyStreams.opened}/${results.manyStreams.attempted} open, ${results.manyStreams.errors} errors, peak RSS ${Math.round(results.manyStreams.peak.rssBytes / 2 ** 20)} MiB\n`);
      stops.push(await stop(instance.process));
    }
    if (!settings.skip.has('soak')) {
      const heapFile = join(tempDir, 'soak-heap.json');
      const instance = await startMunja({ name: 'munja-soak', tempDir, mockPort: mock.port, heapFile, ...(pinned ? { cpus: PROXY_CPU } : {}) });
      say(`bench: munja soak (${settings.soakSeconds} s, ${settings.soakConcurrency} concurrent cycles) … `);
      results.soak = await runSoak(munjaTarget(instance), { seconds: settings.soakSeconds, warmupSeconds: 5, concurrency: settings.soakConcurrency, heapFile, upstreamPort: mock.port });
      say(`${results.soak.cycles} cycles, RSS ${Math.round(results.soak.start.rssBytes / 2 ** 20)} → ${Math.round(results.soak.end.rssBytes / 2 ** 20)} MiB, ${results.soak.withinBudget ? 'within' : 'OVER'} budget\n`);
      stops.push(await stop(instance.process));
    }
    if (!settings.skip.has('engines')) {
      // The engines and Munja float over both cores; the workload's client stays with the bench on CPU 0.
      results.engineFleet = await runEngineFleet({ tempDir, seconds: settings.engineFleetSeconds, cpus: cpu(BOTH_CPUS) }, stops);
    }

    stops.push(...(await stopAll()));
    const info: RunInfo = {
      date: new Date().toISOString(),
      machine: describeMachine(),
      versions,
      commit,
      settings,
      tool,
      pinned,
      backgroundBusy,
      loadAverage: loadavg(),
      steal: stealShare(ticksAtStart, machineTicks()),
      wallSeconds: (performance.now() - began) / 1000,
      stops,
    };
    mkdirSync(join(ROOT, 'docs/bench'), { recursive: true });
    const plots = writePlots(results, join(ROOT, 'docs/bench'));
    const report = renderReport(results, info, plots);
    writeFileSync(join(ROOT, 'bench/REPORT.md'), report.markdown);
    say(`\n${report.summary}\nbench: wrote bench/REPORT.md and ${plots.map((plot) => plot.path).join(', ')}\n`);
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
