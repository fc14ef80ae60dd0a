// Checks the allocation probe against a known allocation: the toy server (toy-server.ts) measured
// without and with an extra array per request; the difference must be the array's size.
//   node bench/allocation/check.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstLine, startNode, stop } from '../processes.ts';
import { allocationProbeEnv, type AllocationResult, measureAllocation } from './measure.ts';

const TOY_SERVER = fileURLToPath(new URL('./toy-server.ts', import.meta.url));
const EXTRA_ELEMENTS = 1_250;
// new Array(n): a JSArray (32 bytes: map, properties, elements, length) and its FixedArray
// (16 bytes of header, 8 per element: Node's V8 runs without pointer compression).
const EXTRA_BYTES = 32 + 16 + 8 * EXTRA_ELEMENTS;
const REQUESTS = 20_000;

async function measureToy(extra: number, tempDir: string): Promise<AllocationResult> {
  const file = join(tempDir, `toy-${extra}.json`);
  const server = startNode(`toy server (extra ${extra})`, ['--max-semi-space-size=8', TOY_SERVER, '--extra', String(extra)], { env: allocationProbeEnv(file) });
  try {
    const port = await firstLine(server, (line) => (JSON.parse(line) as { port?: number }).port, 10_000);
    const request = { method: 'POST' as const, url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' };
    await measureAllocation(request, server.pid, file, { requests: REQUESTS, connections: 16 }); // warm-up
    return await measureAllocation(request, server.pid, file, { requests: REQUESTS, connections: 16 });
  } finally {
    await stop(server);
  }
}

const tempDir = mkdtempSync(join(tmpdir(), 'munja-allocation-check-'));
try {
  const plain = await measureToy(0, tempDir);
  const extra = await measureToy(EXTRA_ELEMENTS, tempDir);
  const difference = extra.bytesPerRequest - plain.bytesPerRequest;
  const show = (result: AllocationResult) => `${result.bytesPerRequest.toFixed(1)} B/request (${result.ok}/${result.requests} ok, ${result.collections} collections)`;
  process.stdout.write(`toy server, no extra: ${show(plain)}\ntoy server, extra array: ${show(extra)}\n`);
  process.stdout.write(`difference ${difference.toFixed(1)} B/request; expected ${EXTRA_BYTES} B (${((difference / EXTRA_BYTES - 1) * 100).toFixed(2)} % off)\n`);
} finally {
  rmSync(tempDir, { recursive: true, force: true });
}
