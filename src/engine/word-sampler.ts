// Zipf-like word distributions shaped by temperature and cut by top_p, cached per shape.
import type { Random } from './prng.ts';

export type PoolKind = 'function' | 'content';

/** Below this the distribution stops sharpening: a true argmax would repeat one word forever. */
const MIN_SHAPE_TEMPERATURE = 0.55;
/** top_p never keeps fewer words than this, for the same reason. */
const MIN_NUCLEUS = 3;
/** Zipf–Mandelbrot offsets: content words are spread more evenly than function words. */
const RANK_OFFSET: Readonly<Record<PoolKind, number>> = { function: 2, content: 10 };
const ZIPF_EXPONENT = 1.1;
const MAX_CACHED_SHAPES = 512;

const cache = new Map<string, Float64Array>();

/**
 * Cumulative weights over the first words of a ranked pool (those inside the nucleus).
 * Temperature flattens (>1, rarer words) or sharpens (<1, common words) p(rank) ∝ (rank + offset)^-s.
 */
export function cumulativeWeights(
  poolId: string,
  kind: PoolKind,
  size: number,
  temperature: number,
  topP: number,
): Float64Array {
  // Rounded so that near-identical floats share a cache entry; the effect is invisible in the text.
  const shapeTemperature = Math.round(Math.max(temperature, MIN_SHAPE_TEMPERATURE) * 100) / 100;
  const nucleus = Math.round(Math.min(Math.max(topP, 0), 1) * 100) / 100;
  const key = `${poolId}|${kind}|${shapeTemperature}|${nucleus}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;

  const exponent = ZIPF_EXPONENT / shapeTemperature;
  const offset = RANK_OFFSET[kind];
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += (rank + offset) ** -exponent;
    cumulative[rank] = total;
  }
  let keep = Math.min(size, MIN_NUCLEUS);
  while (keep < size && (cumulative[keep - 1] ?? total) < nucleus * total) keep++;

  const shape = cumulative.subarray(0, keep);
  if (cache.size >= MAX_CACHED_SHAPES) cache.clear();
  cache.set(key, shape);
  return shape;
}

/** Draws a rank: binary search for the first cumulative weight above a uniform draw. */
export function sampleRank(cumulative: Float64Array, random: Random): number {
  const last = cumulative.length - 1;
  const target = random() * (cumulative[last] ?? 0);
  let low = 0;
  let high = last;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((cumulative[middle] ?? 0) > target) high = middle;
    else low = middle + 1;
  }
  return low;
}
