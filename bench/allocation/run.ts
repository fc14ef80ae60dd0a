// `npm run bench:allocation [-- --checkout DIR]`: the bench's allocation count alone. In rounds of
// fresh processes, the floor relay then Munja (from DIR, another checkout of Munja, when given: how
// the baseline in baseline.ts was measured), each warmed up and saturated as in the bench's rounds,
// then BENCH_ALLOCATION_REQUESTS requests counted by the allocation probe. BENCH_ROUNDS,
// BENCH_SECONDS, … as for run.ts. The mock and the load generator run on CPU 0, the proxies on CPU 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunContext } from '../closed-loop.ts';
import { fixed, table, thousands } from '../format.ts';
import { closedLoop, say, warmUp } from '../phases.ts';
import { canPin, pinSelf, stop, stopAll } from '../processes.ts';
import { clockTicksPerSecond } from '../proc-stats.ts';
import { spreadOf } from '../rounds.ts';
import { collectVersions, commitDescription } from '../run-info.ts';
import { chatJson, type Target } from '../scenarios/index.ts';
import { readSettings } from '../settings.ts';
import { startBareRelay, startMock, startMunja } from '../stack.ts';
import { floorTarget, munjaTarget } from '../targets.ts';
import { type AllocationResult, measureAllocation } from './measure.ts';

const { values } = parseArgs({ options: { checkout: { type: 'string' } } });
const checkout = values.checkout === undefined ? undefined : resolve(values.checkout);
const settings = readSettings();
const requests = settings.allocationRequests > 0 ? settings.allocationRequests : 10_000;
const tempDir = mkdtempSync(join(tmpdir(), 'munja-bench-allocation-'));

async function measure(target: Target, pid: number, file: string, context: RunContext): Promise<AllocationResult> {
  await warmUp(target, settings, context);
  await closedLoop(chatJson, target, { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections }, context);
  const result = await measureAllocation(chatJson.request(target), pid, file, { requests, connections: 16 });
  say(`bench: ${target.name} ${fixed(result.bytesPerRequest, 0)} B/request (${result.ok}/${result.requests} ok, ${result.collections} collections)\n`);
  return result;
}

try {
  const pinned = (await canPin()) && (await pinSelf('0'));
  const versions = await collectVersions();
  const context: RunContext = { tool: versions.wrk === undefined ? 'autocannon' : 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: pinned ? '0' : undefined };
  const cpus = pinned ? '1' : undefined;
  const mock = await startMock(pinned ? '0' : undefined);
  const rows: { floor: AllocationResult; munja: AllocationResult }[] = [];
  for (let index = 0; index < settings.rounds; index++) {
    say(`bench: round ${index + 1} of ${settings.rounds}\n`);
    const floorFile = join(tempDir, `floor-${index}.json`);
    const relay = await startBareRelay(mock.port, cpus, floorFile);
    const floor = await measure(floorTarget(relay.port, relay.process.pid), relay.process.pid, floorFile, context);
    await stop(relay.process);
    const munjaFile = join(tempDir, `munja-${index}.json`);
    const munja = await startMunja({ name: `munja-${index}`, tempDir, mockPort: mock.port, allocationFile: munjaFile, ...(checkout === undefined ? {} : { checkout }), ...(cpus === undefined ? {} : { cpus }) });
    rows.push({ floor, munja: await measure(munjaTarget(munja), munja.process.pid, munjaFile, context) });
    await stop(munja.process);
  }
  const median = (pick: (row: (typeof rows)[number]) => number) => thousands(spreadOf(rows.map(pick))?.median);
  const body = rows.map((row, index) => [String(index + 1), thousands(row.floor.bytesPerRequest), thousands(row.munja.bytesPerRequest)]);
  body.push(['**median**', median((row) => row.floor.bytesPerRequest), median((row) => row.munja.bytesPerRequest)]);
  const munjaCommit = await commitDescription(checkout ?? join(import.meta.dirname, '../..'));
  say(`\nV8 heap bytes allocated per non-streaming request (${thousands(requests)} requests per count); Munja ${munjaCommit}; pinned: ${pinned}\n\n${table(['round', 'floor relay B/req', 'Munja B/req'], body)}\n`);
} finally {
  await stopAll();
  rmSync(tempDir, { recursive: true, force: true });
}
