// temporary A/B: rounds of fresh processes: floor, then each Munja variant (checkout and/or env), CPU/req and req/s
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunContext } from './closed-loop.ts';
import { closedLoop, warmUp } from './phases.ts';
import { pinSelf, stop, stopAll } from './processes.ts';
import { clockTicksPerSecond } from './proc-stats.ts';
import { chatJson } from './scenarios/index.ts';
import { readSettings } from './settings.ts';
import { startBareRelay, startMock, startMunja } from './stack.ts';
import { floorTarget, munjaTarget } from './targets.ts';

const variants = JSON.parse(process.env.AB_VARIANTS ?? '[{"name":"A"}]') as { name: string; checkout?: string; env?: Record<string, string>; flags?: string }[];
const rounds = Number(process.env.AB_ROUNDS ?? 4);
const settings = readSettings();
const tempDir = mkdtempSync(join(tmpdir(), 'ab-'));
await pinSelf('0');
const context: RunContext = { tool: 'wrk', tempDir, ticksPerSecond: await clockTicksPerSecond(), loaderCpus: '0' };
const mock = await startMock('0');
const rows: Record<string, number[]>[] = [];
const base = { seconds: 5, warmupSeconds: 1, connections: 50 };
const cpu = (r: any) => (r.usage.cpuSeconds * 1e6) / Math.max(1, r.load.responses);
for (let round = 0; round < rounds; round++) {
  const row: Record<string, number[]> = {};
  const relay = await startBareRelay(mock.port, '1');
  const ft = floorTarget(relay.port, relay.process.pid);
  await warmUp(ft, settings, context);
  const f = await closedLoop(chatJson, ft, base, context);
  row.floor = [cpu(f), f.load.requestsPerSecond];
  await stop(relay.process);
  for (const v of (round % 2 === 0 ? variants : [...variants].reverse())) {
    process.env.AB_NODE_FLAGS = v.flags ?? '';
    const m = await startMunja({ name: `${v.name}-${round}`, tempDir, mockPort: mock.port, cpus: '1', ...(v.checkout ? { checkout: v.checkout } : {}), ...(v.env ? { env: v.env } : {}) });
    const t = munjaTarget(m);
    await warmUp(t, settings, context);
    const r = await closedLoop(chatJson, t, base, context);
    row[v.name] = [cpu(r), r.load.requestsPerSecond];
    await stop(m.process);
  }
  rows.push(row);
  console.log(`round ${round + 1}: ` + Object.entries(row).map(([k, [c, q]]) => `${k} ${c!.toFixed(1)} µs ${Math.round(q!)} rps${k === 'floor' ? '' : ` (${(c! / row.floor![0]!).toFixed(2)}× / ${(q! / row.floor![1]!).toFixed(2)}×)`}`).join(' | '));
}
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
for (const v of variants) console.log(`${v.name}: median CPU ratio ${med(rows.map((r) => r[v.name]![0]! / r.floor![0]!)).toFixed(3)}×, throughput ratio ${med(rows.map((r) => r[v.name]![1]! / r.floor![1]!)).toFixed(3)}×, CPU ${med(rows.map((r) => r[v.name]![0]!)).toFixed(1)} µs`);
await stopAll();
