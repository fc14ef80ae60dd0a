// A latency distribution as a plot's line: the value at each percentile, on an x axis of
// 1 / (1 - q) so that the tail gets the room.
import { quantileOf } from './samples.ts';

// x = 1 / (1 - q): 1 is the median's left end (q = 0), 10 is p90, 100 p99, 1000 p99.9.
export const NINES = [
  { value: 1, label: '0 %' },
  { value: 2, label: '50 %' },
  { value: 10, label: '90 %' },
  { value: 100, label: '99 %' },
  { value: 1000, label: '99.9 %' },
  { value: 10000, label: '99.99 %' },
];

export function percentileCurve(samples: Float64Array): [number, number][] {
  const sorted = samples.slice().sort();
  const points: [number, number][] = [];
  for (let step = 0; step <= 80; step++) {
    const x = 10 ** (step / 20);
    const quantile = 1 - 1 / x;
    if (sorted.length * (1 - quantile) < 1) break;
    points.push([x, quantileOf(sorted, quantile)]);
  }
  return points;
}
