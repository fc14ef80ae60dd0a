// Random bytes for ids, drawn from a pool refilled in one call. A randomFillSync call costs a few µs
// whatever its size (Node makes a crypto job for it before OpenSSL fills the bytes), so ids take
// their bytes from 8 KB filled at once: one call per few hundred ids.
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8 * 1024;

/** The pool; the bytes drawRandom() hands out are read from it. */
export const randomPool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * Where `length` (at most 8 KB) fresh random bytes start in randomPool. They are drawn by no one
 * else, and stay as they are until the pool is refilled by a later draw: read them at once.
 */
export function drawRandom(length: number): number {
  if (offset + length > POOL_BYTES) {
    randomFillSync(randomPool);
    offset = 0;
  }
  const at = offset;
  offset += length;
  return at;
}
