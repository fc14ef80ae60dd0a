// Picks one of a model's upstreams, at random in proportion to the configured weights.
import type { UpstreamConfig, UpstreamTarget } from '../config/config-types.ts';

export function chooseUpstream(target: UpstreamTarget, random: () => number = Math.random): UpstreamConfig {
  const { upstreams } = target;
  if (upstreams.length === 1) return upstreams[0]!;
  let total = 0;
  for (const upstream of upstreams) total += upstream.weight;
  let pick = random() * total;
  for (const upstream of upstreams) {
    pick -= upstream.weight;
    if (pick < 0) return upstream;
  }
  return upstreams[upstreams.length - 1]!;
}
