// Small, fast, seedable randomness for the local engine. Math.random is never used when a seed is given.

/** Returns a float in [0, 1). */
export type Random = () => number;

/** sfc32: 128-bit state, passes PractRand, a few integer ops per draw. */
export function createRandom(seed: number): Random {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  // The first outputs of sfc32 correlate with the seed; discard them.
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** Folds 32-bit values into one well-mixed 32-bit seed (murmur3-style finaliser per step). */
export function mixSeed(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** The low and high 32-bit halves of an integer seed (seeds may exceed 2^32 or be negative). */
export function seedHalves(seed: number): readonly [number, number] {
  const whole = Number.isFinite(seed) ? Math.trunc(seed) : 0;
  return [whole >>> 0, Math.floor(whole / 4294967296) >>> 0];
}

/** FNV-1a over UTF-16 code units, continuing from `hash`. */
export function hashText(text: string, hash = 0x811c9dc5): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 4294967296);
}
