// Bytes allocated on a process's V8 heap per request: a fixed number of requests sent on
// keep-alive connections opened beforehand (closed loop), between the two readings of the
// allocation probe (probe.ts) loaded into the process. Every request sent is answered before the
// second reading, so the count divides exactly.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HttpConnection, requestBytes } from '../http-connection.ts';
import type { HttpRequest } from '../scenarios/index.ts';
import type { AllocationReading } from './probe.ts';

export const ALLOCATION_PROBE = fileURLToPath(new URL('./probe.ts', import.meta.url));

/** The environment that loads the probe into a Node process, writing to `file`. */
export function allocationProbeEnv(file: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, NODE_OPTIONS: `${base.NODE_OPTIONS ?? ''} --import ${ALLOCATION_PROBE}`.trim(), BENCH_ALLOCATION_FILE: file };
}

export interface AllocationOptions {
  readonly requests: number;
  readonly connections: number;
}

export interface AllocationResult {
  readonly requests: number;
  /** Responses with status 200; anything else makes the figure suspect (the report says so). */
  readonly ok: number;
  readonly allocatedBytes: number;
  readonly bytesPerRequest: number;
  /** Collections during the count (a count without any measured only the growth of the heap). */
  readonly collections: number;
}

const READING_TIMEOUT_MS = 5_000;

export async function measureAllocation(request: HttpRequest, pid: number, file: string, options: AllocationOptions): Promise<AllocationResult> {
  const url = new URL(request.url);
  const bytes = requestBytes(request);
  const connections: HttpConnection[] = [];
  for (let index = 0; index < options.connections; index++) connections.push(await HttpConnection.open(Number(url.port), url.hostname));
  try {
    await reading(pid, file, 'started');
    const ok = await sendAll(connections, bytes, options.requests);
    const { allocatedBytes, collections } = await reading(pid, file, 'stopped');
    return { requests: options.requests, ok, allocatedBytes, bytesPerRequest: allocatedBytes / options.requests, collections };
  } finally {
    for (const connection of connections) connection.destroy();
  }
}

/** Signals the probe and waits for the reading it writes. */
async function reading(pid: number, file: string, state: AllocationReading['state']): Promise<AllocationReading> {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = performance.now() + READING_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (existsSync(file)) {
      const value = JSON.parse(readFileSync(file, 'utf8')) as AllocationReading;
      if (value.state !== state) throw new Error(`allocation probe of ${pid}: expected a "${state}" reading, got "${value.state}"`);
      return value;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`allocation probe of ${pid}: no reading within ${READING_TIMEOUT_MS} ms (is it loaded?)`);
}

/** Sends `count` requests, one at a time per connection; resolves with the number of 200s. */
function sendAll(connections: readonly HttpConnection[], bytes: Buffer, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = 0;
    let ok = 0;
    const sendOn = (connection: HttpConnection) => {
      sent++;
      connection.send(bytes, {
        onEnd: (status) => {
          answered++;
          if (status === 200) ok++;
          if (answered === count) resolve(ok);
          else if (sent < count) sendOn(connection);
        },
        onError: reject,
      });
    };
    for (const connection of connections.slice(0, count)) sendOn(connection);
  });
}
