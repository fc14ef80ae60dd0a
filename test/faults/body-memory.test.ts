// Clients that declare big bodies and stall cannot make the server hold memory (issue: 150 keyless
// connections declaring 4 MiB took RSS from 180 to 783 MiB). The key is checked before any body is
// read, a body buffer grows with what arrives (never from Content-Length), and what all bodies
// hold is capped per process. Measured on a real `munja serve` process with the default settings.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, openSocket } from '../helpers/raw-socket.ts';
import { killServeProcesses, type ServeProcess, startServeProcess } from '../helpers/serve-process.ts';

const MIB = 1024 * 1024;
const DECLARED = 4 * MIB - 1;

let server: ServeProcess;
let key: string;
const dir = mkdtempSync(join(tmpdir(), 'munja-body-memory-'));
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startServeProcess({ MUNJA_DATA: dir });
  key = server.firstKey()!;
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  killServeProcesses();
  rmSync(dir, { recursive: true, force: true });
});

function rssBytes(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

/** The server's RSS settles after a load: the highest of a few samples over half a second. */
async function peakRss(): Promise<number> {
  let peak = 0;
  for (let sample = 0; sample < 10; sample++) {
    peak = Math.max(peak, rssBytes());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return peak;
}

/** Opens a connection, sends the head (and `bodyBytes` of the body), and resolves with what comes back by `untilStatus` (or the guard). */
async function stall(headers: string[], bodyBytes: number): Promise<{ socket: Socket; status: Promise<number> }> {
  const socket = await openSocket(server.port);
  sockets.push(socket);
  socket.on('error', () => {});
  let received = '';
  const status = new Promise<number>((resolve) => {
    const guard = setTimeout(() => resolve(0), 20_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
      if (match) { clearTimeout(guard); resolve(Number(match[1])); }
    });
    socket.on('close', () => { clearTimeout(guard); resolve(0); });
  });
  const head = httpRequest('POST /v1/chat/completions HTTP/1.1', ['Host: x', 'Content-Type: application/json', `Content-Length: ${DECLARED}`, ...headers]);
  await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.alloc(bodyBytes, 0x20)]), () => resolve()));
  return { socket, status };
}

async function warmUp(): Promise<void> {
  for (let index = 0; index < 20; index++) {
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'x'.repeat(64 * 1024) }], max_tokens: 4 }),
    });
    await response.arrayBuffer();
  }
}

describe('bodies declared big and stalled (default settings)', () => {
  it('120 keyless connections get 401 while still stalling, and add at most 96 MiB', async () => {
    await warmUp();
    const before = await peakRss();
    // Each sends its head and all of its body but the last KiB, then nothing more.
    const stalled = await Promise.all(Array.from({ length: 120 }, () => stall([], DECLARED - 1024)));
    const statuses = await Promise.all(stalled.map((connection) => connection.status));
    const grown = (await peakRss()) - before;
    expect(statuses).toEqual(Array.from({ length: 120 }, () => 401));
    expect(grown).toBeLessThanOrEqual(96 * MIB);
    for (const { socket } of stalled) socket.destroy();
  });

  it('40 connections with a valid key, each sending 4 MiB less 1 KiB and stalling, add at most 200 MiB', async () => {
    const before = await peakRss();
    const stalled = await Promise.all(Array.from({ length: 40 }, () => stall([`Authorization: Bearer ${key}`], DECLARED - 1024)));
    const grown = (await peakRss()) - before;
    expect(grown).toBeLessThanOrEqual(200 * MIB);
    // Past the per-process budget (128 MiB) the rest are refused with 503 at once; none is answered otherwise.
    const answered = await Promise.race([
      Promise.all(stalled.map((connection) => connection.status)),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 1_000)),
    ]);
    expect(answered).toBeNull(); // the buffered ones are still waiting for their last KiB
    for (const { socket } of stalled) socket.destroy();
    // The server goes on serving.
    const response = await fetch(`http://127.0.0.1:${server.port}/health`);
    expect(response.status).toBe(200);
  });
});
