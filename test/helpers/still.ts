import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until `read` gives the same value twice `quietMs` apart (a counter that stopped moving) and
 * returns that value. Here time passing is the point: "stopped" means nothing moved for that long.
 */
export async function waitUntilStill(read: () => number, quietMs: number, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = read();
  while (performance.now() < deadline) {
    await sleep(quietMs);
    const now = read();
    if (now === last) return now;
    last = now;
  }
  throw new Error(`still moving after ${timeoutMs} ms (at ${last})`);
}
