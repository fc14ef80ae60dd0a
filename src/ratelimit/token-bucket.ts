// Continuous-refill token bucket arithmetic, shared by the in-memory limiter and the reference
// model the Redis script is tested against. Pure functions of (state, now). token-bucket.lua
// repeats these operations in the same order, so both sides round identically.

export const MINUTE_MS = 60_000;

export interface Bucket {
  level: number;
  updatedAt: number; // ms
}

export function refill(bucket: Bucket, capacity: number, now: number): void {
  const elapsed = now - bucket.updatedAt;
  if (elapsed > 0) {
    bucket.level = Math.min(capacity, bucket.level + (elapsed * capacity) / MINUTE_MS);
    bucket.updatedAt = now;
  } else {
    // A lowered limit takes effect at once; a clock that went back refills nothing.
    bucket.level = Math.min(capacity, bucket.level);
  }
}

/** Milliseconds until the bucket holds `amount`; Infinity when it never can. */
export function msUntil(level: number, amount: number, capacity: number): number {
  if (amount > capacity) return Infinity;
  if (level >= amount) return 0;
  return Math.ceil(((amount - level) * MINUTE_MS) / capacity);
}
