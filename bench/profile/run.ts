// `npm run bench:profile`: where a request's CPU goes, in Munja and in the floor relay, part by
// part (each of Munja's source files, the libraries, native calls, the collector), for the bench's
// non-streaming chat request and for its 100-chunk stream. In rounds of fresh processes, as in the
// bench: for each of the two, the floor relay then Munja, each under V8's sampling profiler, warmed
// up, then saturated by that request (50 connections) for BENCH_SECONDS. Only the samples of that measured load count. A part's µs per request is its share
// of the busy samples times the CPU per request read from /proc over the same load, so the figures
// carry the profiler's own overhead, and the collector's helper threads (not sampled) are spread
// over every part. Writes bench/PROFILE.md; BENCH_ROUNDS (3 here), BENCH_SECONDS as for run.ts;
// BENCH_PROFILE_KEEP=1 keeps the .cpuprofile files (Chrome DevTools opens them) and prints where.
// BENCH_PROFILE_CACHE=1 profiles a response-cache hit instead: in each round one Munja, its relayed
// JSON request then the same answered from its cache (the requests of bench/cache-cost.ts), each
// load's samples apart; writes bench/PROFILE-CACHE.md.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheBenchRequest } from '../cache-cost.ts';
import type { RunContext } from '../closed-loop.ts';
import { fixed } from '../format.ts';
import { runLoad } from '../load.ts';
import { say, warmUp } from '../phases.ts';
import { canPin, pinSelf, stop, stopAll } from '../processes.ts';
import { clockTicksPerSecond, describeMachine } from '../proc-stats.ts';
import { ResourceWatch } from '../resource-watch.ts';
import { collectVersions, commitDescription } from '../run-info.ts';
import { chatRequest, type HttpRequest, type Target } from '../scenarios/index.ts';
import { readSettings } from '../settings.ts';
import { startBareRelay, startMock, startMunja } from '../stack.ts';
import { floorTarget, munjaTarget } from '../targets.ts';
import { selfTime } from './cpu-profile.ts';
import { type Comparison, type Measured, renderComparison, type Row } from './profile-table.ts';

const ROOT = join(import.meta.dirname, '../..');
const CACHE_HIT = process.env.BENCH_PROFILE_CACHE === '1';
const REPORT = join(ROOT, CACHE_HIT ? 'bench/PROFILE-CACHE.md' : 'bench/PROFILE.md');
const CONNECTIONS = 50;
// One sample per 100 µs: a few per request, and overhead that leaves the ratio near the bench's.
const PROFILER_FLAGS = (dir: string) => `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=100`;

const settings = readSettings();
const rounds = process.env.BENCH_ROUNDS === undefined ? 3 : settings.rounds;
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-profile-'));

/** One measured load: when it ran (monotonic µs, as the profiler stamps its samples) and what it cost. */
interface LoadWindow {
  readonly fromUs: number;
  readonly toUs: number;
  readonly cpuUsPerRequest: number;
  readonly requestsPerSecond: number;
}

type Shape = 'json' | 'stream';

const COMPARISONS: Record<Shape | 'cache-hit', Comparison> = {
  json: { title: 'the non-streaming chat request', unit: 'request', base: 'floor relay', measured: 'Munja' },
  stream: { title: 'the 100-chunk stream', unit: 'stream', base: 'floor relay', measured: 'Munja' },
  'cache-hit': { title: 'the non-streaming chat request, relayed and answered from the cache', unit: 'request', base: 'relayed', measured: 'cache hit' },
};

function loadOptions(context: RunContext) {
  return { connections: CONNECTIONS, expectStatus: 200, tempDir, ...(context.loaderCpus === undefined ? {} : { cpus: context.loaderCpus }) };
}

/** Saturates `target` with `request` for BENCH_SECONDS, its CPU read from /proc meanwhile. */
async function measureLoad(target: Target, request: HttpRequest, context: RunContext): Promise<LoadWindow> {
  const watch = new ResourceWatch(context.ticksPerSecond, target.pids);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  watch.start();
  const load = await runLoad(context.tool, request, { ...loadOptions(context), seconds: settings.seconds });
  const usage = watch.stop();
  const toUs = Number(process.hrtime.bigint() / 1000n);
  return { fromUs, toUs, cpuUsPerRequest: (usage.cpuSeconds * 1e6) / Math.max(1, load.responses), requestsPerSecond: load.requestsPerSecond };
}

/** The profile a stopped process wrote into `dir`. */
function profileIn(dir: string, name: string): string {
  const file = readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${name} wrote no CPU profile`);
  return join(dir, file);
}

/** A load's samples in `file`, as µs per request by part. */
function partsOf(file: string, window: LoadWindow, label: string): Measured {
  const self = selfTime(file, ROOT, window.fromUs, window.toUs);
  const parts = new Map<string, number>();
  for (const [part, samples] of self.byPart) parts.set(part, (samples / Math.max(1, self.busySamples)) * window.cpuUsPerRequest);
  say(`bench: ${label} ${fixed(window.requestsPerSecond, 0)} req/s, ${fixed(window.cpuUsPerRequest, 1)} µs CPU/request, ${self.busySamples} busy samples\n`);
  return { cpuUsPerRequest: window.cpuUsPerRequest, requestsPerSecond: window.requestsPerSecond, parts };
}

async function profile(target: Target, dir: string, stopTarget: () => Promise<unknown>, context: RunContext, shape: Shape): Promise<Measured> {
  await warmUp(target, settings, context);
  const window = await measureLoad(target, chatRequest(target, shape, shape === 'stream'), context);
  await stopTarget(); // the profile is written as the process exits
  return partsOf(profileIn(dir, target.name), window, `${target.name} ${shape}`);
}

/** One Munja: its relayed JSON request, then the same answered from its cache, after a warm-up of hits. */
async function profileCacheHit(target: Target, dir: string, stopTarget: () => Promise<unknown>, context: RunContext): Promise<Row> {
  await warmUp(target, settings, context);
  const relayedWindow = await measureLoad(target, cacheBenchRequest(target, false, false), context);
  const hitRequest = cacheBenchRequest(target, false, true);
  await runLoad(context.tool, hitRequest, { ...loadOptions(context), seconds: Math.max(1, settings.warmupSeconds) });
  const hitWindow = await measureLoad(target, hitRequest, context);
  await stopTarget();
  const file = profileIn(dir, target.name);
  return { base: partsOf(file, relayedWindow, 'munja relayed json'), measured: partsOf(file, hitWindow, 'munja cache-hit json') };
}

function machineLine(): string {
  const machine = describeMachine();
  return `${machine.cpuModel}, ${machine.cores} logical cores`;
}

const NOTES = [
  '- A part\'s µs per request is its share of the main thread\'s busy samples times the CPU per request read from `/proc` over the same load (all threads). The profiler\'s overhead is in every figure, so the totals run above the bench\'s; compare the parts, and the ratio, within this file.',
  '- V8 charges a native call to the JavaScript function that makes it. The functions whose time is nearly all one such call are named by it: `uWS: the response written` is `send()` in `src/http/respond.ts` and the floor\'s `#reply()`; `uWS: getRemoteAddress` is `peerAddress()` in `src/http/peer-address.ts`; `uWS: a stream\'s head, events and end sent` is `open()`, `write()` and `end()` in `src/streaming/sse-writer.ts` and the floor\'s `#flush()` and `onResponseEnd()`. `native: writev` is the upstream request written by Node\'s socket.',
];

async function relayReport(context: RunContext, mockPort: number, cpus: string | undefined): Promise<string> {
  const rows: Record<Shape, Row[]> = { json: [], stream: [] };
  for (let index = 0; index < rounds; index++) {
    say(`bench: profile round ${index + 1} of ${rounds}\n`);
    for (const shape of ['json', 'stream'] as const) {
      const floorDir = join(tempDir, `floor-${shape}-${index}`);
      mkdirSync(floorDir);
      const relay = await startBareRelay(mockPort, cpus, undefined, PROFILER_FLAGS(floorDir));
      const base = await profile(floorTarget(relay.port, relay.process.pid), floorDir, () => stop(relay.process), context, shape);
      const munjaDir = join(tempDir, `munja-${shape}-${index}`);
      mkdirSync(munjaDir);
      const munja = await startMunja({ name: `munja-${shape}-${index}`, tempDir, mockPort, env: { NODE_OPTIONS: PROFILER_FLAGS(munjaDir) }, ...(cpus === undefined ? {} : { cpus }) });
      rows[shape].push({ base, measured: await profile(munjaTarget(munja), munjaDir, () => stop(munja.process), context, shape) });
    }
  }
  const heading = [
    '# Where a request\'s CPU goes: Munja and the floor relay',
    '',
    'Generated by `npm run bench:profile` (`bench/profile/run.ts`); every run rewrites this file.',
    '',
    `- Munja commit: ${await commitDescription(ROOT)}; Node ${process.version}; ${machineLine()}`,
    `- ${rounds} rounds of fresh processes, each under V8's sampling profiler (one sample per 100 µs), warmed up, then ${settings.seconds} s of the bench's non-streaming chat request, or of its 100-chunk stream, at ${CONNECTIONS} connections; the proxies ${cpus === undefined ? 'unpinned' : 'on CPU 1, the mock and the load generator on CPU 0'}.`,
    ...NOTES,
    '- On a stream the floor relay writes what each upstream read brought in one send, as Munja does (`bench/floor/bare-relay.ts`).',
  ].join('\n');
  return `${heading}\n\n${renderComparison(rows.json, COMPARISONS.json)}\n${renderComparison(rows.stream, COMPARISONS.stream)}`;
}

async function cacheHitReport(context: RunContext, mockPort: number, cpus: string | undefined): Promise<string> {
  const rows: Row[] = [];
  for (let index = 0; index < rounds; index++) {
    say(`bench: profile round ${index + 1} of ${rounds}\n`);
    const dir = join(tempDir, `munja-cache-${index}`);
    mkdirSync(dir);
    const munja = await startMunja({ name: `munja-cache-${index}`, tempDir, mockPort, env: { NODE_OPTIONS: PROFILER_FLAGS(dir) }, ...(cpus === undefined ? {} : { cpus }) });
    rows.push(await profileCacheHit(munjaTarget(munja), dir, () => stop(munja.process), context));
  }
  const heading = [
    '# Where a response-cache hit\'s CPU goes, beside the relayed request\'s',
    '',
    'Generated by `BENCH_PROFILE_CACHE=1 npm run bench:profile` (`bench/profile/run.ts`); every such run rewrites this file.',
    '',
    `- Munja commit: ${await commitDescription(ROOT)}; Node ${process.version}; ${machineLine()}`,
    `- ${rounds} rounds of a fresh Munja under V8's sampling profiler (one sample per 100 µs), warmed up, then ${settings.seconds} s of the cache bench's relayed JSON request and, after ${Math.max(1, settings.warmupSeconds)} s of warm-up, ${settings.seconds} s of the same answered from the cache (\`x-munja-cache: on\`, \`temperature: 0\`), at ${CONNECTIONS} connections, each load's samples counted apart; Munja ${cpus === undefined ? 'unpinned' : 'on CPU 1, the mock and the load generator on CPU 0'}.`,
    ...NOTES,
  ].join('\n');
  return `${heading}\n\n${renderComparison(rows, COMPARISONS['cache-hit'])}`;
}

try {
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const cpus = pinned ? '1' : undefined;
  const mock = await startMock(pinned ? '0' : undefined);
  writeFileSync(REPORT, CACHE_HIT ? await cacheHitReport(context, mock.port, cpus) : await relayReport(context, mock.port, cpus));
  say(`bench: wrote ${REPORT}\n`);
} finally {
  await stopAll();
  if (process.env.BENCH_PROFILE_KEEP === '1') say(`bench: the profiles are kept in ${tempDir}\n`);
  else rmSync(tempDir, { recursive: true, force: true });
}
