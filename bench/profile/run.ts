// `npm run bench:profile`: where a request's CPU goes, in Munja and in the floor relay, part by
// part (each of Munja's source files, the libraries, native calls, the collector), for the bench's
// non-streaming chat request and for its 100-chunk stream. In rounds of fresh processes, as in the
// bench: for each of the two, the floor relay then Munja, each under V8's sampling profiler, warmed
// up, then saturated by that request (50 connections) for BENCH_SECONDS. Only the samples of that measured load count. A part's µs per request is its share
// of the busy samples times the CPU per request read from /proc over the same load, so the figures
// carry the profiler's own overhead, and the collector's helper threads (not sampled) are spread
// over every part. Writes bench/PROFILE.md; BENCH_ROUNDS (3 here), BENCH_SECONDS as for run.ts;
// BENCH_PROFILE_KEEP=1 keeps the .cpuprofile files (Chrome DevTools opens them) and prints where.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunContext } from '../closed-loop.ts';
import { fixed, table } from '../format.ts';
import { runLoad } from '../load.ts';
import { say, warmUp } from '../phases.ts';
import { canPin, pinSelf, stop, stopAll } from '../processes.ts';
import { clockTicksPerSecond, describeMachine } from '../proc-stats.ts';
import { ResourceWatch } from '../resource-watch.ts';
import { spreadOf } from '../rounds.ts';
import { collectVersions, commitDescription } from '../run-info.ts';
import { chatRequest, type Target } from '../scenarios/index.ts';
import { readSettings } from '../settings.ts';
import { startBareRelay, startMock, startMunja } from '../stack.ts';
import { floorTarget, munjaTarget } from '../targets.ts';
import { selfTime } from './cpu-profile.ts';

const ROOT = join(import.meta.dirname, '../..');
const REPORT = join(ROOT, 'bench/PROFILE.md');
const CONNECTIONS = 50;
// One sample per 100 µs: a few per request, and overhead that leaves the ratio near the bench's.
const PROFILER_FLAGS = (dir: string) => `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=100`;

const settings = readSettings();
const rounds = process.env.BENCH_ROUNDS === undefined ? 3 : settings.rounds;
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-profile-'));

interface Measured {
  readonly cpuUsPerRequest: number;
  readonly requestsPerSecond: number;
  /** µs per request by part. */
  readonly parts: ReadonlyMap<string, number>;
}

type Shape = 'json' | 'stream';

async function profile(target: Target, pid: number, dir: string, stopTarget: () => Promise<unknown>, context: RunContext, shape: Shape): Promise<Measured> {
  await warmUp(target, settings, context);
  const request = chatRequest(target, shape, shape === 'stream');
  const options = { connections: CONNECTIONS, expectStatus: 200, tempDir, ...(context.loaderCpus === undefined ? {} : { cpus: context.loaderCpus }) };
  const watch = new ResourceWatch(context.ticksPerSecond, [pid]);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  watch.start();
  const load = await runLoad(context.tool, request, { ...options, seconds: settings.seconds });
  const usage = watch.stop();
  const toUs = Number(process.hrtime.bigint() / 1000n);
  await stopTarget(); // the profile is written as the process exits
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`${target.name} wrote no CPU profile`);
  const self = selfTime(join(dir, file), ROOT, fromUs, toUs);
  const cpuUsPerRequest = (usage.cpuSeconds * 1e6) / Math.max(1, load.responses);
  const parts = new Map<string, number>();
  for (const [part, samples] of self.byPart) parts.set(part, (samples / Math.max(1, self.busySamples)) * cpuUsPerRequest);
  say(`bench: ${target.name} ${shape} ${fixed(load.requestsPerSecond, 0)} req/s, ${fixed(cpuUsPerRequest, 1)} µs CPU/request, ${self.busySamples} busy samples\n`);
  return { cpuUsPerRequest, requestsPerSecond: load.requestsPerSecond, parts };
}

function median(values: readonly number[]): number {
  return spreadOf(values)?.median ?? 0;
}

const SHAPES: Record<Shape, { title: string; unit: string }> = {
  json: { title: 'the non-streaming chat request', unit: 'request' },
  stream: { title: 'the 100-chunk stream', unit: 'stream' },
};

function render(rows: { floor: Measured; munja: Measured }[], shape: Shape): string {
  const { title, unit } = SHAPES[shape];
  const parts = new Set<string>();
  for (const row of rows) for (const part of [...row.floor.parts.keys(), ...row.munja.parts.keys()]) parts.add(part);
  const byPart = [...parts].map((part) => {
    const floor = median(rows.map((row) => row.floor.parts.get(part) ?? 0));
    const munja = median(rows.map((row) => row.munja.parts.get(part) ?? 0));
    return { part, floor, munja, added: munja - floor };
  });
  const shown = byPart.filter((row) => Math.abs(row.added) >= 0.05 || row.floor >= 0.05 || row.munja >= 0.05).sort((a, b) => b.munja - a.munja || b.floor - a.floor);
  const rest = byPart.filter((row) => !shown.includes(row));
  const sum = (pick: (row: (typeof byPart)[number]) => number, list = rest) => list.reduce((total, row) => total + pick(row), 0);
  const floorCpu = median(rows.map((row) => row.floor.cpuUsPerRequest));
  const munjaCpu = median(rows.map((row) => row.munja.cpuUsPerRequest));
  const body = shown.map((row) => [`\`${row.part}\``, fixed(row.floor, 2), fixed(row.munja, 2), signed(row.added)]);
  body.push([`${rest.length} smaller parts`, fixed(sum((row) => row.floor), 2), fixed(sum((row) => row.munja), 2), signed(sum((row) => row.added))]);
  body.push([`**CPU per ${unit} (median of the rounds)**`, fixed(floorCpu, 1), fixed(munjaCpu, 1), signed(munjaCpu - floorCpu)]);
  const perRound = rows.map((row, index) => [String(index + 1), fixed(row.floor.cpuUsPerRequest, 1), fixed(row.munja.cpuUsPerRequest, 1), `${fixed(row.munja.cpuUsPerRequest / row.floor.cpuUsPerRequest, 2)}×`, fixed(row.floor.requestsPerSecond, 0), fixed(row.munja.requestsPerSecond, 0)]);
  const rounds = table(['round', `floor µs/${unit}`, `Munja µs/${unit}`, 'Munja ÷ floor', `floor ${unit}s/s`, `Munja ${unit}s/s`], perRound);
  return `## ${title[0]!.toUpperCase()}${title.slice(1)}\n\n### Rounds\n\n${rounds}\n\n### By part (µs per ${unit}, medians of the rounds)\n\n${table(['part', 'floor relay', 'Munja', 'Munja − floor'], body)}\n`;
}

function machineLine(): string {
  const machine = describeMachine();
  return `${machine.cpuModel}, ${machine.cores} logical cores`;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)}`;
}

try {
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const cpus = pinned ? '1' : undefined;
  const mock = await startMock(pinned ? '0' : undefined);
  const rows: Record<Shape, { floor: Measured; munja: Measured }[]> = { json: [], stream: [] };
  for (let index = 0; index < rounds; index++) {
    say(`bench: profile round ${index + 1} of ${rounds}\n`);
    for (const shape of ['json', 'stream'] as const) {
      const floorDir = join(tempDir, `floor-${shape}-${index}`);
      mkdirSync(floorDir);
      const relay = await startBareRelay(mock.port, cpus, undefined, PROFILER_FLAGS(floorDir));
      const floor = await profile(floorTarget(relay.port, relay.process.pid), relay.process.pid, floorDir, () => stop(relay.process), context, shape);
      const munjaDir = join(tempDir, `munja-${shape}-${index}`);
      mkdirSync(munjaDir);
      const munja = await startMunja({ name: `munja-${shape}-${index}`, tempDir, mockPort: mock.port, env: { NODE_OPTIONS: PROFILER_FLAGS(munjaDir) }, ...(cpus === undefined ? {} : { cpus }) });
      rows[shape].push({ floor, munja: await profile(munjaTarget(munja), munja.process.pid, munjaDir, () => stop(munja.process), context, shape) });
    }
  }
  const heading = [
    '# Where a request\'s CPU goes: Munja and the floor relay',
    '',
    'Generated by `npm run bench:profile` (`bench/profile/run.ts`); every run rewrites this file.',
    '',
    `- Munja commit: ${await commitDescription(ROOT)}; Node ${process.version}; ${machineLine()}`,
    `- ${rounds} rounds of fresh processes, each under V8's sampling profiler (one sample per 100 µs), warmed up, then ${settings.seconds} s of the bench's non-streaming chat request, or of its 100-chunk stream, at ${CONNECTIONS} connections; the proxies ${pinned ? 'on CPU 1, the mock and the load generator on CPU 0' : 'unpinned'}.`,
    '- A part\'s µs per request is its share of the main thread\'s busy samples times the CPU per request read from `/proc` over the same load (all threads). The profiler\'s overhead is in every figure, so the totals run above the bench\'s; compare the parts, and the ratio, within this file.',
    '- V8 charges a native call to the JavaScript function that makes it. The functions whose time is nearly all one such call are named by it: `uWS: the response written` is `send()` in `src/http/respond.ts` and the floor\'s `#reply()`; `uWS: getRemoteAddress` is `peerAddress()` in `src/http/peer-address.ts`; `uWS: a stream\'s head, events and end sent` is `open()`, `write()` and `end()` in `src/streaming/sse-writer.ts` and the floor\'s `#flush()` and `onResponseEnd()`. `native: writev` is the upstream request written by Node\'s socket.',
    '- On a stream the floor relay writes what each upstream read brought in one send, as Munja does (`bench/floor/bare-relay.ts`).',
  ].join('\n');
  writeFileSync(REPORT, `${heading}\n\n${render(rows.json, 'json')}\n${render(rows.stream, 'stream')}`);
  say(`bench: wrote ${REPORT}\n`);
} finally {
  await stopAll();
  if (process.env.BENCH_PROFILE_KEEP === '1') say(`bench: the profiles are kept in ${tempDir}\n`);
  else rmSync(tempDir, { recursive: true, force: true });
}
