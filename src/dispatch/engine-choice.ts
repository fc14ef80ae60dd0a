// The upstream for a model whose upstreams declare their engines: by saturation, load and prefix
// affinity rather than by weight. Load is counted in prompt tokens to prefill, since an engine's
// time to a first token goes with them (one 3,000-token prompt is not one 300-token prompt): each
// request in flight from this process weighs, until its stream starts (the engine has prefilled its
// prompt then) or it ends, those its engine is estimated to prefill for it, the
// ones added since the last turn on the engine that served its conversation (it holds the rest in
// its prefix cache), elsewhere all of them, less its leading system message on an engine sent that
// message lately (the instructions a client's sessions share, in that engine's cache).
// Among the healthy upstreams (the circuit breaker and 429 back-off decide which), a conversation
// keeps to the upstream that served it before while that one is not saturated and carries no more
// than LOAD_BOUND times the average requests in flight, or past that bound while it has less
// prefill ahead of the request than any other would have with the whole conversation to prefill.
// A new one goes to the upstream consistent hashing (rendezvous) gives it while that one is not
// saturated and within LOAD_BOUND times the average in requests and in tokens, its own added
// (bounded-load consistent hashing: a burst of long unrelated prompts does not pile onto the
// engines their hashes name). Otherwise the unsaturated upstream with the fewest tokens to prefill,
// the request's own included, serves (this process's own counts, exact and current, make no herd);
// when those are equal, two upstreams are drawn at random among the unsaturated ones (all, if every
// one is) and the less saturated one serves (power of two choices: gateways that see the same
// samples do not all pick the same engine).
// Each pick also tells whether every healthy upstream was full (`full`), for the admission queue,
// and the tokens it is estimated to cost its upstream (`weight`), for began() and ended().
import type { UpstreamConfig } from '../config/config-types.ts';
import type { EngineSignals } from '../upstream/engine-signals.ts';
import { AffinityTable } from './affinity-table.ts';
import { fnv1a } from './conversation-key.ts';
import { SharedPrefixes } from './shared-prefixes.ts';
import type { InFlight } from './in-flight.ts';
import type { UpstreamHealth } from './upstream-health.ts';

/** An upstream may carry up to this multiple of the healthy upstreams' average in flight and still keep its conversations. */
const LOAD_BOUND = 1.25;
/** Shared prefixes (system prompts) remembered per upstream as sent there lately. */
const SHARED_PREFIXES_PER_UPSTREAM = 64;

export class EngineChoice {
  readonly #health: UpstreamHealth;
  readonly #inFlight: InFlight;
  readonly #signals: Pick<EngineSignals, 'saturation' | 'began' | 'ended'>;
  readonly #affinity: AffinityTable;
  readonly #random: () => number;
  readonly #upstreamHashes = new Map<UpstreamConfig, number>();
  /** Per upstream: the prompt tokens its engine is estimated to prefill for this process's requests in flight. */
  readonly #tokens = new Map<UpstreamConfig, number>();
  /** Reused for each pick: the healthy candidates and their scores. */
  readonly #healthy: UpstreamConfig[] = [];
  readonly #scores: number[] = [];
  /** The last pick found every healthy upstream full (isFull); false when none was healthy. */
  full = false;
  /** The prompt tokens the last pick's upstream is estimated to prefill for the request. */
  weight = 0;
  // The request being picked for: its tokens beyond a shared prefix, that prefix's tokens and hash (0: none).
  #unshared = 0;
  #sharedTokens = 0;
  #sharedPrefix = 0;
  readonly #prefixes = new SharedPrefixes(SHARED_PREFIXES_PER_UPSTREAM);

  constructor(health: UpstreamHealth, inFlight: InFlight, signals: Pick<EngineSignals, 'saturation' | 'began' | 'ended'>, affinityEntries: number, random: () => number = Math.random) {
    this.#health = health;
    this.#inFlight = inFlight;
    this.#signals = signals;
    this.#affinity = new AffinityTable(affinityEntries);
    this.#random = random;
  }

  /** Conversations remembered (for tests). */
  get remembered(): number {
    return this.#affinity.size;
  }

  /**
   * The upstream for the next attempt, other than `exclude`; with no healthy one, whatever the
   * health's own pick gives (a trial request, one backing off, or null). `conversation`: see
   * conversation-key.ts; null for none. `promptTokens`: the request's (estimated); `sharedTokens`
   * and `sharedPrefix`: those of its leading system message and its hash, 0 for none
   * (conversation-key.ts).
   */
  pick(upstreams: readonly UpstreamConfig[], exclude: UpstreamConfig | null, conversation: string | null, promptTokens = 0, sharedTokens = 0, sharedPrefix = 0): UpstreamConfig | null {
    const healthy = this.#healthy;
    const scores = this.#scores;
    healthy.length = 0;
    scores.length = 0;
    let totalInFlight = 0;
    let totalTokens = 0;
    let full = true;
    for (let i = 0; i < upstreams.length; i++) {
      const upstream = upstreams[i]!;
      if (upstream === exclude || !this.#health.isHealthy(upstream)) continue;
      const score = this.saturation(upstream);
      healthy.push(upstream);
      scores.push(score);
      totalInFlight += this.#inFlight.count(upstream);
      totalTokens += this.tokensInFlight(upstream);
      // A full upstream scores 1 or more: an unsaturated one costs the queue one comparison.
      full &&= score >= 1 && this.isFull(upstream);
    }
    this.full = full && healthy.length > 0;
    this.weight = promptTokens;
    if (healthy.length === 0) return this.#health.pick(upstreams, exclude);
    this.#unshared = Math.max(0, promptTokens - sharedTokens);
    this.#sharedTokens = promptTokens - this.#unshared;
    this.#sharedPrefix = sharedPrefix;
    // One healthy upstream leaves nothing to remember.
    const remembers = conversation !== null && healthy.length > 1;
    const home = remembers ? this.#affine(conversation, promptTokens, Math.ceil((LOAD_BOUND * (totalInFlight + 1)) / healthy.length), totalTokens) : null;
    const chosen = home ?? this.#twoChoices();
    if (remembers) this.#affinity.remember(conversation, chosen, promptTokens);
    if (sharedPrefix !== 0) this.#prefixes.sent(chosen, sharedPrefix);
    return chosen;
  }

  /** An attempt on the upstream starts: counted against its engine until its next sample; `weight`: the pick's. */
  began(upstream: UpstreamConfig, weight = 0): void {
    this.#signals.began(upstream);
    if (weight > 0) this.#tokens.set(upstream, this.tokensInFlight(upstream) + weight);
  }

  ended(upstream: UpstreamConfig, weight = 0): void {
    this.#signals.ended(upstream);
    if (weight > 0) this.prefilled(upstream, weight);
  }

  /** The engine has prefilled an attempt's prompt (its stream started): `weight`, the pick's, is off its count. */
  prefilled(upstream: UpstreamConfig, weight: number): void {
    this.#tokens.set(upstream, Math.max(0, this.tokensInFlight(upstream) - weight));
  }

  /** The prompt tokens the upstream's engine is estimated to prefill for this process's requests in flight. */
  tokensInFlight(upstream: UpstreamConfig): number {
    return this.#tokens.get(upstream) ?? 0;
  }

  /**
   * 0 idle, 1 and above saturated: the engine's signals, or for an upstream without them its share of
   * its connections in flight; with a `maxConcurrent`, its share of that too (the worse counts).
   */
  saturation(upstream: UpstreamConfig): number {
    const { maxConcurrent } = upstream;
    const engine = this.#signals.saturation(upstream);
    const own = this.#inFlight.count(upstream) / (maxConcurrent ?? upstream.maxConnections);
    if (engine === null) return own;
    return maxConcurrent === undefined ? engine : Math.max(engine, own);
  }

  /**
   * The upstream takes no more requests until some leave: its `maxConcurrent` is reached, or its
   * engine's fresh sample says it is saturated. An engine without a fresh sample (never read, or
   * stale) is not taken as full: only the cap counts then, so that an engine whose metrics cannot
   * be read never holds requests in the queue until their deadline.
   */
  isFull(upstream: UpstreamConfig): boolean {
    const { maxConcurrent } = upstream;
    if (maxConcurrent !== undefined && this.#inFlight.count(upstream) >= maxConcurrent) return true;
    const engine = this.#signals.saturation(upstream);
    return engine !== null && engine !== Infinity && engine >= 1;
  }

  /** Every healthy upstream is full (false when none is healthy: a request then fails at once, as without a queue). */
  allFull(upstreams: readonly UpstreamConfig[]): boolean {
    let healthy = 0;
    for (const upstream of upstreams) {
      if (!this.#health.isHealthy(upstream)) continue;
      if (!this.isFull(upstream)) return false;
      healthy++;
    }
    return healthy > 0;
  }

  /**
   * The conversation's upstream while it can take it: the one that served it (and holds its prefix),
   * else the first by rendezvous hashing while its tokens, the request's own added, stay within
   * LOAD_BOUND times the average (nothing is cached for the conversation anywhere yet). Sets `weight`
   * for the upstream it gives.
   */
  #affine(conversation: string, promptTokens: number, loadBound: number, totalTokens: number): UpstreamConfig | null {
    const healthy = this.#healthy;
    const served = this.#affinity.get(conversation);
    if (served !== undefined) {
      const at = healthy.indexOf(served.upstream);
      if (at !== -1) {
        const weight = Math.max(0, promptTokens - served.promptTokens);
        if (!this.#acceptable(at, loadBound) && !(this.#scores[at]! < 1 && this.#cheaperAt(at, weight))) return null;
        this.weight = weight;
        return served.upstream;
      }
    }
    const key = fnv1a(0x811c9dc5, conversation);
    let best = -1;
    let bestRank = -1;
    for (let i = 0; i < healthy.length; i++) {
      const rank = mix(key ^ this.#hashOf(healthy[i]!));
      if (rank > bestRank) {
        best = i;
        bestRank = rank;
      }
    }
    const weight = this.#weightAt(best);
    const tokenBound = Math.max(weight, (LOAD_BOUND * (totalTokens + weight)) / healthy.length);
    if (!this.#acceptable(best, loadBound) || this.tokensInFlight(healthy[best]!) + weight > tokenBound) return null;
    this.weight = weight;
    return healthy[best]!;
  }

  /** The request's prompt tokens the upstream at `i` has to prefill when it has not served its conversation: all but a shared prefix it was sent lately. */
  #weightAt(i: number): number {
    return this.#sharedPrefix !== 0 && this.#prefixes.has(this.#healthy[i]!, this.#sharedPrefix) ? this.#unshared : this.#unshared + this.#sharedTokens;
  }

  /**
   * Whether the upstream at `at` has less prefill ahead of the request's first token, the request's
   * own `weight` there included, than the lightest other unsaturated one with what the request
   * would cost it: moving costs re-prefilling the conversation.
   */
  #cheaperAt(at: number, weight: number): boolean {
    const healthy = this.#healthy;
    let lightest = Infinity;
    for (let i = 0; i < healthy.length; i++) if (i !== at && this.#scores[i]! < 1) lightest = Math.min(lightest, this.tokensInFlight(healthy[i]!) + this.#weightAt(i));
    return this.tokensInFlight(healthy[at]!) + weight < lightest;
  }

  #acceptable(at: number, loadBound: number): boolean {
    return this.#scores[at]! < 1 && this.#inFlight.count(this.#healthy[at]!) < loadBound;
  }

  /**
   * The unsaturated healthy upstream with the fewest prompt tokens to prefill, the request's own
   * included, when they set them apart (this process's own counts, exact and current, make no
   * herd); else power of two choices among the unsaturated ones, or among all when every one is
   * saturated. Sets `weight` for the upstream it gives.
   */
  #twoChoices(): UpstreamConfig {
    const healthy = this.#healthy;
    const scores = this.#scores;
    let unsaturated = 0;
    let lightest = -1;
    let fewest = Infinity;
    let most = 0;
    for (let i = 0; i < scores.length; i++) {
      if (scores[i]! >= 1) continue;
      unsaturated++;
      const tokens = this.tokensInFlight(healthy[i]!) + this.#weightAt(i);
      if (tokens < fewest) {
        lightest = i;
        fewest = tokens;
      }
      if (tokens > most) most = tokens;
    }
    let chosen: number;
    if (most > fewest) chosen = lightest;
    else {
      const pool = unsaturated === 0 ? healthy.length : unsaturated;
      if (pool === 1) chosen = unsaturated === 0 ? 0 : nthUnder1(scores, 0);
      else {
        const first = Math.floor(this.#random() * pool);
        let second = Math.floor(this.#random() * (pool - 1));
        if (second >= first) second++;
        chosen = this.#lessLoaded(unsaturated === 0 ? first : nthUnder1(scores, first), unsaturated === 0 ? second : nthUnder1(scores, second));
      }
    }
    this.weight = this.#weightAt(chosen);
    return healthy[chosen]!;
  }

  /** The lower score; between equal ones (two stale engines, say), fewer in flight; then the first drawn. */
  #lessLoaded(a: number, b: number): number {
    const scores = this.#scores;
    const healthy = this.#healthy;
    if (scores[b]! < scores[a]!) return b;
    if (scores[b]! === scores[a]! && this.#inFlight.count(healthy[b]!) < this.#inFlight.count(healthy[a]!)) return b;
    return a;
  }

  #hashOf(upstream: UpstreamConfig): number {
    let hash = this.#upstreamHashes.get(upstream);
    if (hash === undefined) {
      hash = fnv1a(fnv1a(0x811c9dc5, upstream.baseUrl), upstream.model);
      this.#upstreamHashes.set(upstream, hash);
    }
    return hash;
  }
}

/** The index of the n-th score under 1. */
function nthUnder1(scores: readonly number[], n: number): number {
  for (let i = 0; i < scores.length; i++) if (scores[i]! < 1 && n-- === 0) return i;
  return -1;
}

/** A 32-bit finaliser (murmur3's), so that nearby hashes rank unrelatedly. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
