// What a response-cache hit costs: Munja's CPU per request for the same chat request relayed to the
// mock and answered from its cache (`x-munja-cache: on`, `temperature: 0`), JSON and a 100-chunk
// stream, against nginx serving a static file of the same bytes. Rounds of a fresh Munja, the
// relayed and the cached runs side by side in each; nginx is started once, after the first round
// has written the files. The goal: a hit at most 0.5× a relayed request's CPU.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ClosedLoopResult, cpuPerRequestUs, type RunContext } from './closed-loop.ts';
import { fixed, ratio, table } from './format.ts';
import { STREAM_CHUNKS } from './mock/models.ts';
import { REPLY_TEXT } from './mock/reply.ts';
import { type Peer, startNginx } from './peer/nginx.ts';
import { closedLoop, say, warmUp } from './phases.ts';
import { stop, type StopOutcome } from './processes.ts';
import { checkCompletion, checkStream } from './scenarios/checks.ts';
import { chatRequest, type HttpRequest, type Scenario, type Target } from './scenarios/index.ts';
import type { Settings } from './settings.ts';
import { startMunja } from './stack.ts';
import { munjaTarget } from './targets.ts';

export const HIT_GOAL = 0.5;

export type CacheReply = 'json' | 'stream';

export interface CacheCost {
  /** Per scenario id (relayed-…, cache-hit-…, static-…), one run per round. */
  readonly runs: ReadonlyMap<string, readonly ClosedLoopResult[]>;
  readonly rounds: number;
  readonly seconds: number;
  readonly connections: number;
  /** Why nginx was not measured; '' when it was. */
  readonly nginxNote: string;
}

export interface CacheCostOptions {
  readonly tempDir: string;
  readonly mockPort: number;
  /** Munja's and nginx's CPUs (undefined: not pinned). */
  readonly cpus: string | undefined;
  readonly rounds: number;
}

/**
 * The chat request made cacheable, and asked to be cached when `cached`. The JSON and the streamed
 * requests differ by their seed, so that each has its own entry: otherwise the stream would be
 * served from the JSON reply's entry, rebuilt (one content chunk), which is not the hit measured.
 */
export function cacheBenchRequest(target: Target, stream: boolean, cached: boolean): HttpRequest {
  const request = chatRequest(target, stream ? 'stream' : 'json', stream);
  const body = { ...JSON.parse(request.body!), temperature: 0, seed: stream ? 2 : 1 };
  return { ...request, headers: { ...request.headers, ...(cached ? { 'x-munja-cache': 'on' } : {}) }, body: JSON.stringify(body) };
}

/** The relayed request, or the same answered from the cache. */
function scenario(stream: boolean, cached: boolean): Scenario {
  const kind = stream ? 'stream' : 'json';
  return {
    id: `${cached ? 'cache-hit' : 'relayed'}-${kind}`,
    workload: `${cached ? 'cache hit' : 'relayed'}, ${stream ? `SSE (${STREAM_CHUNKS} chunks)` : 'JSON'}`,
    expectStatus: 200,
    request: (target) => cacheBenchRequest(target, stream, cached),
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

export async function runCacheCost(settings: Settings, options: CacheCostOptions, context: RunContext, stops: StopOutcome[]): Promise<CacheCost> {
  const measured = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections };
  const runs = new Map<string, ClosedLoopResult[]>();
  const keep = (result: ClosedLoopResult) => runs.set(result.scenario.id, [...(runs.get(result.scenario.id) ?? []), result]);
  const root = join(options.tempDir, 'cache-static');
  mkdirSync(root, { recursive: true });
  const cpus = options.cpus === undefined ? {} : { cpus: options.cpus };
  let nginx: Peer | undefined;
  let nginxTarget: Target | undefined;
  let nginxNote = '';
  try {
    for (let round = 0; round < options.rounds; round++) {
      say(`bench: cache, round ${round + 1} of ${options.rounds}\n`);
      const munja = await startMunja({ name: `munja-cache-${round + 1}`, tempDir: options.tempDir, mockPort: options.mockPort, ...cpus });
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
      stops.push(await stop(munja.process));
      if (round === 0) {
        const started = await startNginx(options.tempDir, { root }, options.cpus, 20_000, 'nginx-static');
        if (typeof started === 'string') nginxNote = `nginx skipped: ${started}`;
        else {
          nginx = started;
          nginxTarget = { name: 'nginx', label: `nginx ${started.version}`, origin: `http://127.0.0.1:${started.port}`, headers: {}, model: () => '', replyModel: () => '', pids: [started.process.pid] };
        }
      }
      if (nginxTarget !== undefined) for (const stream of [false, true]) keep(await closedLoop(staticScenario(stream), nginxTarget, measured, context));
    }
  } finally {
    if (nginx !== undefined) stops.push(await stop(nginx.process));
  }
  return { runs, rounds: options.rounds, seconds: settings.seconds, connections: settings.connections, nginxNote };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** The median CPU µs per request of a scenario over the rounds. */
export function medianCpu(cost: CacheCost, id: string): number {
  return median((cost.runs.get(id) ?? []).map(cpuPerRequestUs));
}

/** A hit's CPU over the relayed request's, medians of the rounds. */
export function hitOverRelayed(cost: CacheCost, reply: CacheReply): number {
  return medianCpu(cost, `cache-hit-${reply}`) / medianCpu(cost, `relayed-${reply}`);
}

export const replyLabel = (reply: CacheReply) => (reply === 'json' ? 'JSON' : `SSE, ${STREAM_CHUNKS} chunks`);

/** The markdown table and its note. */
export function cacheCostTable(cost: CacheCost): string {
  const rate = (id: string) => median((cost.runs.get(id) ?? []).map((result) => result.load.requestsPerSecond));
  const rows = (['json', 'stream'] as const).map((reply) => {
    const [relayed, hit, nginx] = [medianCpu(cost, `relayed-${reply}`), medianCpu(cost, `cache-hit-${reply}`), medianCpu(cost, `static-${reply}`)];
    return [replyLabel(reply), fixed(relayed, 0), fixed(hit, 0), fixed(nginx, 0), ratio(hit / relayed), ratio(hit / nginx),
      `${fixed(rate(`relayed-${reply}`), 0)} / ${fixed(rate(`cache-hit-${reply}`), 0)} / ${fixed(rate(`static-${reply}`), 0)}`, hit / relayed <= HIT_GOAL ? 'met' : 'missed'];
  });
  const problems = [...cost.runs.values()].flat().filter((result) => result.checkProblem !== undefined).map((result) => `${result.scenario.id}: ${result.checkProblem}`);
  return `${table(['reply', 'relayed µs CPU/req', 'hit µs CPU/req', 'nginx static µs CPU/req', 'hit / relayed', 'hit / nginx', 'req/s relayed / hit / nginx', `goal ≤ ${HIT_GOAL}× relayed`], rows)}\n\n`
    + `Medians of ${cost.rounds} round(s) of a fresh Munja, ${cost.seconds} s each at ${cost.connections} connections; the cached request is the relayed one with \`temperature: 0\` and \`x-munja-cache: on\`, answered from the cache by its exact bytes; nginx serves the bytes of a hit as a static file.`
    + `${cost.nginxNote === '' ? '' : `\n${cost.nginxNote}`}${problems.length === 0 ? '' : `\nCHECKS FAILED: ${problems.join('; ')}`}`;
}
