// Which model serves a request for a route such as `auto`. `least-outstanding`: the candidate whose
// least-busy healthy upstream (or, for the local engine, the model itself) has the fewest requests
// in flight in this process; ties go to the earlier candidate, and a candidate with no healthy
// upstream is skipped while another can serve. Within the chosen model, dispatch picks the upstream
// by weight among the healthy ones. `first`: the first candidate with a healthy upstream.
import type { ModelConfig } from '../config/config-types.ts';
import type { InFlight } from '../dispatch/in-flight.ts';
import type { UpstreamHealth } from '../dispatch/upstream-health.ts';
import type { ResolvedModel } from './model-catalog.ts';

export class RouteChoice {
  readonly #health: UpstreamHealth;
  readonly #inFlight: InFlight;

  constructor(health: UpstreamHealth, inFlight: InFlight) {
    this.#health = health;
    this.#inFlight = inFlight;
  }

  serve(resolved: ResolvedModel): ModelConfig {
    const { candidates, policy } = resolved;
    if (policy === null || candidates.length === 1) return candidates[0]!;
    let best: ModelConfig | null = null;
    let bestLoad = Infinity;
    for (const candidate of candidates) {
      const load = this.#load(candidate);
      if (load === null) continue;
      if (policy === 'first') return candidate;
      if (load < bestLoad) {
        best = candidate;
        bestLoad = load;
      }
    }
    // Nothing healthy: the first candidate answers (its breaker fails fast, or probes).
    return best ?? candidates[0]!;
  }

  /** Requests in flight on the candidate's least-busy healthy target; null when none is healthy. */
  #load(model: ModelConfig): number | null {
    const { target } = model;
    if (target.kind !== 'upstreams') return this.#inFlight.count(model);
    let least: number | null = null;
    for (const upstream of target.upstreams) {
      if (!this.#health.isHealthy(upstream)) continue;
      const count = this.#inFlight.count(upstream);
      if (least === null || count < least) least = count;
    }
    return least;
  }
}
