// What this process knows of each upstream's health: a circuit breaker, and a back-off after a
// 429. Consecutive failures eject an upstream for `ejectMs`; after that one trial request
// (half-open) either restores it or ejects it again. An upstream that answered 429 is passed over
// while others can serve, so that a configured alternative takes the next requests.
import type { ResilienceConfig, UpstreamConfig } from '../config/config-types.ts';
import type { AttemptVerdict } from '../upstream/upstream-errors.ts';

interface UpstreamState {
  consecutiveFailures: number;
  /** 0: closed. Otherwise the breaker is open until then, and half-open after. */
  ejectedUntil: number;
  /** A half-open trial request is in flight; nothing else goes to this upstream meanwhile. */
  probing: boolean;
  backoffUntil: number;
}

/** Neither ejected nor backing off after a 429 (an upstream with no state has had no trouble). */
function serving(state: UpstreamState, now: number): boolean {
  return state.ejectedUntil === 0 && state.backoffUntil <= now;
}

export interface UpstreamHealthStats {
  readonly ejections: number;
  readonly restorations: number;
  readonly ejected: number;
}

export class UpstreamHealth {
  readonly #states = new Map<UpstreamConfig, UpstreamState>();
  readonly #settings: ResilienceConfig;
  readonly #now: () => number;
  #ejections = 0;
  #restorations = 0;

  constructor(settings: ResilienceConfig, now: () => number = Date.now) {
    this.#settings = settings;
    this.#now = now;
  }

  /**
   * The upstream for the next attempt: a healthy one, chosen by weight, other than `exclude`; else
   * one due for its trial request; else one backing off after a 429. Null when all are ejected.
   */
  pick(upstreams: readonly UpstreamConfig[], exclude: UpstreamConfig | null = null, random: () => number = Math.random): UpstreamConfig | null {
    const now = this.#now();
    // Counted rather than collected: most models have one upstream, and a list per request was garbage.
    // Indexed loops: a for-of here allocated an iterator and its results on every request.
    let healthy = 0;
    let totalWeight = 0;
    let lastHealthy: UpstreamConfig | null = null;
    let probe: UpstreamConfig | null = null;
    let backingOff: UpstreamConfig | null = null;
    for (let i = 0; i < upstreams.length; i++) {
      const upstream = upstreams[i]!;
      if (upstream === exclude) continue;
      const state = this.#states.get(upstream);
      if (state === undefined || serving(state, now)) {
        healthy++;
        totalWeight += upstream.weight;
        lastHealthy = upstream;
      } else if (state.ejectedUntil !== 0) {
        if (probe === null && !state.probing && state.ejectedUntil <= now) probe = upstream;
      } else if (backingOff === null || state.backoffUntil < this.#states.get(backingOff)!.backoffUntil) backingOff = upstream;
    }
    if (healthy > 1) return this.#byWeight(upstreams, exclude, now, random() * totalWeight) ?? lastHealthy;
    return lastHealthy ?? probe ?? backingOff;
  }

  /** The healthy upstream (other than `exclude`) at `point` of their weights laid end to end. */
  #byWeight(upstreams: readonly UpstreamConfig[], exclude: UpstreamConfig | null, now: number, point: number): UpstreamConfig | null {
    for (let i = 0; i < upstreams.length; i++) {
      const upstream = upstreams[i]!;
      if (upstream === exclude) continue;
      const state = this.#states.get(upstream);
      if (state !== undefined && !serving(state, now)) continue;
      point -= upstream.weight;
      if (point < 0) return upstream;
    }
    return null;
  }

  /** Neither ejected nor backing off after a 429. */
  isHealthy(upstream: UpstreamConfig): boolean {
    const state = this.#states.get(upstream);
    return state === undefined || serving(state, this.#now());
  }

  /** An attempt starts; a half-open upstream's attempt is its trial. */
  begin(upstream: UpstreamConfig): void {
    const state = this.#states.get(upstream);
    if (state !== undefined && state.ejectedUntil !== 0) state.probing = true;
  }

  /** An attempt ended; what it says of the upstream ('unknown': the client left before it could tell). */
  end(upstream: UpstreamConfig, verdict: AttemptVerdict | 'unknown', retryAfterMs = 0): void {
    const state = this.#state(upstream);
    const wasProbe = state.probing;
    state.probing = false;
    if (verdict === 'unknown') return;
    if (verdict === 'failed') {
      state.consecutiveFailures += 1;
      if (wasProbe || (state.ejectedUntil === 0 && state.consecutiveFailures >= this.#settings.breaker.consecutiveFailures)) {
        if (!wasProbe) this.#ejections += 1;
        state.ejectedUntil = this.#now() + this.#settings.breaker.ejectMs;
      }
      return;
    }
    // A 429 shows the upstream is up; only its own capacity is spent.
    state.consecutiveFailures = 0;
    if (state.ejectedUntil !== 0) {
      state.ejectedUntil = 0;
      this.#restorations += 1;
    }
    if (verdict === 'rate-limited') state.backoffUntil = this.#now() + Math.min(retryAfterMs, this.#settings.rateLimitBackoffMaxMs);
  }

  /** Milliseconds until the first ejected upstream of these may be tried again (for Retry-After). */
  msUntilRetry(upstreams: readonly UpstreamConfig[]): number {
    const now = this.#now();
    let soonest = Infinity;
    for (const upstream of upstreams) {
      const until = this.#states.get(upstream)?.ejectedUntil ?? 0;
      soonest = Math.min(soonest, Math.max(0, until - now));
    }
    return Number.isFinite(soonest) ? soonest : 0;
  }

  stats(): UpstreamHealthStats {
    let ejected = 0;
    for (const state of this.#states.values()) if (state.ejectedUntil !== 0) ejected += 1;
    return { ejections: this.#ejections, restorations: this.#restorations, ejected };
  }

  #state(upstream: UpstreamConfig): UpstreamState {
    let state = this.#states.get(upstream);
    if (state === undefined) {
      state = { consecutiveFailures: 0, ejectedUntil: 0, probing: false, backoffUntil: 0 };
      this.#states.set(upstream, state);
    }
    return state;
  }
}
