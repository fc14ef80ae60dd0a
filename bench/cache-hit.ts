// `npm run bench:cache`: what a response-cache hit costs. Munja's CPU per request for the same chat
// request relayed to the mock and answered from its cache (`x-munja-cache: on`, `temperature: 0`),
// JSON and a 100-chunk stream, against nginx serving a static file of the same bytes. Rounds of a
// fresh Munja (BENCH_ROUNDS, default 3), BENCH_SECONDS, BENCH_CONNECTIONS as for run.ts; the goal is
// a hit at most 0.5× a relayed request. The mock and the load generator run on CPU 0, Munja and
// nginx on CPU 1. Prints a markdown table; every process it starts is stopped by its PID.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import { fixed, ratio, table } from './format.ts';
import { STREAM_CHUNKS } from './mock/models.ts';
import { REPLY_TEXT } from './mock/reply.ts';
import { startNginx } from './peer/nginx.ts';
import { closedLoop, say, warmUp } from './phases.ts';
import { canPin, pinSelf, stop, stopAll } from './processes.ts';
import { clockTicksPerSecond, machineBusyOver } from './proc-stats.ts';
import { collectVersions } from './run-info.ts';
import { checkCompletion, checkStream } from './scenarios/checks.ts';
import { chatRequest, type Scenario, type Target } from './scenarios/index.ts';
import { readSettings } from './settings.ts';
import { startMock, startMunja } from './stack.ts';
import { munjaTarget } from './targets.ts';

const HIT_GOAL = 0.5;

/** The relayed chat request, or the same made cacheable and asked to be cached. */
function scenario(stream: boolean, cached: boolean): Scenario {
  const kind = stream ? 'stream' : 'json';
  return {
    id: `${cached ? 'cache-hit' : 'relayed'}-${kind}`,
    workload: `${cached ? 'cache hit' : 'relayed'}, ${stream ? `SSE (${STREAM_CHUNKS} chunks)` : 'JSON'}`,
    expectStatus: 200,
    request: (target) => {
      const request = chatRequest(target, kind, stream);
      const body = { ...JSON.parse(request.body!), temperature: 0 };
      return { ...request, headers: { ...request.headers, ...(cached ? { 'x-munja-cache': 'on' } : {}) }, body: JSON.stringify(body) };
    },
    check: (body, target) => (stream ? checkStream(body, target.replyModel(kind), STREAM_CHUNKS) : checkCompletion(body, target.replyModel(kind), REPLY_TEXT)),
  };
}

/** nginx's GET of a file holding a hit's bytes. */
function staticScenario(stream: boolean): Scenario {
  const file = stream ? 'reply.sse' : 'reply.json';
  return {
    id: `static-${stream ? 'stream' : 'json'}`,
    workload: `static file (${stream ? 'SSE' : 'JSON'})`,
    expectStatus: 200,
    request: (target) => ({ method: 'GET', url: `${target.origin}/${file}`, headers: {} }),
    check: (body) => (body.length > 0 ? undefined : 'empty file'),
  };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const settings = readSettings();
const rounds = process.env.BENCH_ROUNDS === undefined ? 3 : settings.rounds;
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-cache-'));
try {
  const busy = await machineBusyOver(1_000);
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const cpus = pinned ? { cpus: '1' } : {};
  const mock = await startMock(pinned ? '0' : undefined);
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections };
  const results = new Map<string, ClosedLoopResult[]>();
  const keep = (result: ClosedLoopResult) => results.set(result.scenario.id, [...(results.get(result.scenario.id) ?? []), result]);
  const root = join(tempDir, 'static');
  mkdirSync(root, { recursive: true });
  let nginxTarget: Target | undefined;
  let nginxNote = '';
  for (let round = 0; round < rounds; round++) {
    say(`bench: cache, round ${round + 1} of ${rounds}\n`);
    const munja = await startMunja({ name: `munja-cache-${round + 1}`, tempDir, mockPort: mock.port, ...cpus });
    const target = munjaTarget(munja);
    await warmUp(target, settings, context);
    for (const stream of [false, true]) {
      keep(await closedLoop(scenario(stream, false), target, { ...measured, log: munja.log }, context));
      keep(await closedLoop(scenario(stream, true), target, { ...measured, log: munja.log }, context));
      if (round === 0) {
        // The static files hold what a hit sends.
        const request = scenario(stream, true).request(target);
        const reply = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body ?? null });
        if (reply.headers.get('x-munja-cache') !== 'hit') throw new Error(`the cached request was not a hit: ${reply.headers.get('x-munja-cache')}`);
        writeFileSync(join(root, stream ? 'reply.sse' : 'reply.json'), Buffer.from(await reply.arrayBuffer()));
      }
    }
    await stop(munja.process);
    if (round === 0) {
      const nginx = await startNginx(tempDir, { root }, pinned ? '1' : undefined, 20_000, 'nginx-static');
      if (typeof nginx === 'string') nginxNote = `nginx skipped: ${nginx}`;
      else nginxTarget = { name: 'nginx', label: `nginx ${nginx.version}`, origin: `http://127.0.0.1:${nginx.port}`, headers: {}, model: () => '', replyModel: () => '', pids: [nginx.process.pid] };
    }
    if (nginxTarget !== undefined) for (const stream of [false, true]) keep(await closedLoop(staticScenario(stream), nginxTarget, measured, context));
  }
  const cpu = (id: string) => median((results.get(id) ?? []).map(cpuPerRequestUs));
  const rate = (id: string) => median((results.get(id) ?? []).map((result) => result.load.requestsPerSecond));
  const rows = (['json', 'stream'] as const).map((kind) => {
    const [relayed, hit, nginx] = [cpu(`relayed-${kind}`), cpu(`cache-hit-${kind}`), cpu(`static-${kind}`)];
    return [kind === 'json' ? 'JSON' : `SSE, ${STREAM_CHUNKS} chunks`, fixed(relayed, 0), fixed(hit, 0), fixed(nginx, 0), ratio(hit / relayed), ratio(hit / nginx),
      `${fixed(rate(`relayed-${kind}`), 0)} / ${fixed(rate(`cache-hit-${kind}`), 0)} / ${fixed(rate(`static-${kind}`), 0)}`, hit / relayed <= HIT_GOAL ? 'met' : 'missed'];
  });
  const problems = [...results.values()].flat().filter((result) => result.checkProblem !== undefined).map((result) => `${result.scenario.id}: ${result.checkProblem}`);
  say(`\n${table(['reply', 'relayed µs CPU/req', 'hit µs CPU/req', 'nginx static µs CPU/req', 'hit / relayed', 'hit / nginx', 'req/s relayed / hit / nginx', `goal ≤ ${HIT_GOAL}× relayed`], rows)}\n\n`
    + `Medians of ${rounds} rounds, ${settings.seconds} s each at ${settings.connections} connections; machine busy before the run: ${Math.round(busy * 100)} %; pinned: ${pinned}; load generator: ${context.tool}.`
    + `${nginxNote === '' ? '' : `\n${nginxNote}`}${problems.length === 0 ? '' : `\nCHECKS FAILED: ${problems.join('; ')}`}\n`);
} finally {
  await stopAll();
  rmSync(tempDir, { recursive: true, force: true });
}
