// The allocation target's baseline: Munja's bytes allocated on the V8 heap per non-streaming
// request before its hot path was optimised. Measured with `npm run bench:allocation -- --checkout
// DIR`, DIR a checkout of the commit below: 3 rounds of 10,000 counted requests, median 28,919 B
// (28,722–29,373); the floor relay beside it 6,827 B (6,733–6,985).
export const BASELINE_ALLOCATION = {
  commit: '077922e',
  date: '2026-11-25',
  bytesPerRequest: 28_919,
} as const;
