// The choice among a model's engine upstreams: saturation scores with two random choices, stale and
// missing signals, the breaker's verdict first, and prefix affinity bounded by saturation and load.
import { describe, expect, it } from 'vitest';
import type { ResilienceConfig, UpstreamConfig } from '../../../src/config/config-types.ts';
import { DEFAULT_ENGINE_SATURATION } from '../../../src/config/default-config.ts';
import { EngineChoice } from '../../../src/dispatch/engine-choice.ts';
import { InFlight } from '../../../src/dispatch/in-flight.ts';
import { UpstreamHealth } from '../../../src/dispatch/upstream-health.ts';

const SETTINGS: ResilienceConfig = {
  retry: { budgetPercent: 10, reserve: 10, backoffMs: 0 },
  breaker: { consecutiveFailures: 1, ejectMs: 60_000 },
  rateLimitBackoffMaxMs: 5_000,
};

function upstream(name: string, engine: UpstreamConfig['engine'] = 'vllm'): UpstreamConfig {
  return {
    baseUrl: `http://${name}/v1`, origin: `http://${name}`, chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages',
    api: ['chat'], model: name, apiKey: null, weight: 1, maxConnections: 4, engine, saturation: engine === undefined ? undefined : DEFAULT_ENGINE_SATURATION,
  };
}

/** Signals the test sets by hand: a score per upstream (null: no engine polled). */
class FakeSignals {
  readonly scores = new Map<UpstreamConfig, number | null>();
  saturation(target: UpstreamConfig): number | null {
    return this.scores.has(target) ? this.scores.get(target)! : Infinity;
  }
  began(): void {}
  ended(): void {}
}

/** The hash of a system prompt (conversation-key.ts, sharedPrefixHash). */
const SYSTEM_PROMPT = 0x5157;

/** A seeded generator, so that the random draws are the same on every run. */
function seeded(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function setup(count = 4, affinityEntries = 100) {
  const health = new UpstreamHealth(SETTINGS);
  const inFlight = new InFlight();
  const signals = new FakeSignals();
  const choice = new EngineChoice(health, inFlight, signals, affinityEntries, seeded());
  const upstreams = Array.from({ length: count }, (_, i) => upstream(`e${i}`));
  return { health, inFlight, signals, choice, upstreams };
}

function tally(pick: () => UpstreamConfig | null, times: number): Map<UpstreamConfig | null, number> {
  const counts = new Map<UpstreamConfig | null, number>();
  for (let i = 0; i < times; i++) {
    const chosen = pick();
    counts.set(chosen, (counts.get(chosen) ?? 0) + 1);
  }
  return counts;
}

describe('EngineChoice without a conversation', () => {
  it('never picks a saturated engine while one is not', () => {
    const { signals, choice, upstreams } = setup();
    const [e0, e1, e2, e3] = upstreams as [UpstreamConfig, UpstreamConfig, UpstreamConfig, UpstreamConfig];
    signals.scores.set(e0, 1.2).set(e1, 0.2).set(e2, 0.3).set(e3, 5);
    const counts = tally(() => choice.pick(upstreams, null, null), 400);
    // Two choices among the two unsaturated ones always include the less loaded: it takes them all.
    expect(counts.get(e1)).toBe(400);
  });

  it('power of two choices: the least loaded of many is not taken every time, the most loaded never', () => {
    const { signals, choice, upstreams } = setup();
    upstreams.forEach((target, i) => signals.scores.set(target, 0.1 + i * 0.2));
    const counts = tally(() => choice.pick(upstreams, null, null), 1200);
    expect(counts.get(upstreams[3]!)).toBeUndefined();
    // The least loaded wins every draw it is in: half of them with four upstreams.
    expect(counts.get(upstreams[0]!)).toBeGreaterThan(450);
    expect(counts.get(upstreams[0]!)).toBeLessThan(750);
    expect(counts.get(upstreams[1]!)).toBeGreaterThan(0);
  });

  it('stale or missing signals count as saturated; when every engine is, the fewest in flight wins', () => {
    const { inFlight, signals, choice, upstreams } = setup(2);
    const [fresh, stale] = upstreams as [UpstreamConfig, UpstreamConfig];
    signals.scores.set(fresh, 0.9);
    // `stale` has no score: the fake answers Infinity, as EngineSignals does for a stale or missing sample.
    for (let i = 0; i < 20; i++) expect(choice.pick(upstreams, null, null)).toBe(fresh);
    signals.scores.set(fresh, Infinity);
    inFlight.begin(fresh);
    for (let i = 0; i < 20; i++) expect(choice.pick(upstreams, null, null)).toBe(stale);
    inFlight.begin(stale);
    inFlight.begin(stale);
    for (let i = 0; i < 20; i++) expect(choice.pick(upstreams, null, null)).toBe(fresh);
  });

  it('flapping signals: the choice follows each sample as it changes', () => {
    const { signals, choice, upstreams } = setup(2);
    const [a, b] = upstreams as [UpstreamConfig, UpstreamConfig];
    for (let round = 0; round < 6; round++) {
      const busy = round % 2 === 0 ? a : b;
      const idle = busy === a ? b : a;
      signals.scores.set(busy, round % 3 === 0 ? Infinity : 1.5).set(idle, 0.1);
      expect(choice.pick(upstreams, null, null)).toBe(idle);
    }
  });

  it('an upstream without an engine is scored by its connections in flight', () => {
    const { inFlight, signals, choice } = setup(0);
    const plain = upstream('plain', undefined);
    const engine = upstream('engine');
    signals.scores.set(plain, null).set(engine, 0.6);
    // 2 of 4 connections: 0.5, below the engine's 0.6.
    inFlight.begin(plain);
    inFlight.begin(plain);
    expect(choice.saturation(plain)).toBe(0.5);
    expect(choice.pick([plain, engine], null, null)).toBe(plain);
    inFlight.begin(plain);
    expect(choice.pick([plain, engine], null, null)).toBe(engine);
  });

  it('ejected upstreams are not chosen; the excluded one (a retry) neither; with none healthy the breaker decides', () => {
    const { health, signals, choice, upstreams } = setup(2);
    const [a, b] = upstreams as [UpstreamConfig, UpstreamConfig];
    signals.scores.set(a, 0).set(b, 0.9);
    health.end(a, 'failed');
    for (let i = 0; i < 10; i++) expect(choice.pick(upstreams, null, null)).toBe(b);
    expect(choice.pick(upstreams, b, null)).toBeNull();
    health.end(b, 'failed');
    expect(choice.pick(upstreams, null, null)).toBeNull();
  });
});

describe('EngineChoice with prefix affinity', () => {
  it('keeps a conversation on one engine turn after turn, and spreads conversations over the engines', () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.2);
    const homes = new Set<UpstreamConfig>();
    for (let conversation = 0; conversation < 40; conversation++) {
      const first = choice.pick(upstreams, null, `k:c${conversation}`);
      for (let turn = 0; turn < 5; turn++) expect(choice.pick(upstreams, null, `k:c${conversation}`)).toBe(first);
      homes.add(first!);
    }
    expect(homes.size).toBe(4);
  });

  it('a saturated home sends the conversation elsewhere, and it stays there once moved', () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.2);
    const home = choice.pick(upstreams, null, 'u:alice')!;
    signals.scores.set(home, 1);
    const moved = choice.pick(upstreams, null, 'u:alice')!;
    expect(moved).not.toBe(home);
    // The new engine holds the prefix now: it keeps the conversation after the old one recovers.
    signals.scores.set(home, 0.2);
    for (let turn = 0; turn < 5; turn++) expect(choice.pick(upstreams, null, 'u:alice')).toBe(moved);
  });

  it('bounded load: a home carrying more than 1.25x the average in flight passes new turns on', () => {
    const { inFlight, signals, choice, upstreams } = setup(2);
    for (const target of upstreams) signals.scores.set(target, 0.1);
    const home = choice.pick(upstreams, null, 'k:hot')!;
    const other = upstreams.find((target) => target !== home)!;
    // 3 in flight at home, 0 elsewhere: the bound is ceil(1.25 * 4 / 2) = 3, which home has reached.
    for (let i = 0; i < 3; i++) inFlight.begin(home);
    expect(choice.pick(upstreams, null, 'k:hot')).toBe(other);
  });

  it('the affinity table stays within its bound', () => {
    const { signals, choice, upstreams } = setup(4, 10);
    for (const target of upstreams) signals.scores.set(target, 0.2);
    for (let conversation = 0; conversation < 100; conversation++) choice.pick(upstreams, null, `k:${conversation}`);
    expect(choice.remembered).toBe(10);
  });

  it('remembers nothing when one upstream is healthy', () => {
    const { health, signals, choice, upstreams } = setup(2);
    for (const target of upstreams) signals.scores.set(target, 0.2);
    health.end(upstreams[0]!, 'failed');
    expect(choice.pick(upstreams, null, 'k:solo')).toBe(upstreams[1]);
    expect(choice.remembered).toBe(0);
  });
});

describe('EngineChoice: load in prompt tokens', () => {
  /** Picks and starts a request of `tokens` prompt tokens; the upstream and the weight it was started with. */
  function start(choice: EngineChoice, upstreams: readonly UpstreamConfig[], conversation: string | null, tokens: number) {
    const chosen = choice.pick(upstreams, null, conversation, tokens)!;
    const { weight } = choice;
    choice.began(chosen, weight);
    return { chosen, weight };
  }

  it('a burst of long prompts spreads evenly: the engine with the fewest prompt tokens in flight takes the next', () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.1);
    const counts = tally(() => start(choice, upstreams, null, 3_000).chosen, 8);
    expect([...counts.values()]).toEqual([2, 2, 2, 2]);
    for (const target of upstreams) expect(choice.tokensInFlight(target)).toBe(6_000);
  });

  it('tokens outweigh a lower score among unsaturated engines, never a saturated one', () => {
    const { signals, choice, upstreams } = setup(3);
    const [busy, quiet, full] = upstreams as [UpstreamConfig, UpstreamConfig, UpstreamConfig];
    signals.scores.set(busy, 0.1).set(quiet, 0.6).set(full, 1.5);
    choice.began(busy, 3_000);
    for (let i = 0; i < 20; i++) expect(choice.pick(upstreams, null, null, 500)).toBe(quiet);
    choice.ended(busy, 3_000);
    expect(choice.tokensInFlight(busy)).toBe(0);
  });

  it("a conversation's engine is charged only the tokens added since its last turn; another engine all of them", () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.1);
    const first = start(choice, upstreams, 'k:agent', 9_000);
    expect(first.weight).toBe(9_000);
    choice.ended(first.chosen, first.weight);
    const second = start(choice, upstreams, 'k:agent', 9_500);
    expect(second.chosen).toBe(first.chosen);
    expect(second.weight).toBe(500);
    expect(choice.tokensInFlight(first.chosen)).toBe(500);
  });

  it('past the bound on requests, a home keeps its conversation while moving would cost more prefill than staying', () => {
    const { inFlight, signals, choice, upstreams } = setup(2);
    for (const target of upstreams) signals.scores.set(target, 0.1);
    const home = choice.pick(upstreams, null, 'k:agent', 9_000, 8_000, SYSTEM_PROMPT)!;
    const other = upstreams.find((target) => target !== home)!;
    // Another session with the same system prompt went to the other engine: it holds that prompt too.
    choice.pick(upstreams, home, null, 8_100, 8_000, SYSTEM_PROMPT);
    // Three requests in flight at home reach the bound on requests (see above); 2,000 tokens to prefill there.
    for (let i = 0; i < 3; i++) inFlight.begin(home);
    choice.began(home, 2_000);
    // Home: 2,000 + the turn's new 500. Elsewhere: 6,000 ahead + the conversation's 1,500 beyond the system prompt.
    choice.began(other, 6_000);
    expect(choice.pick(upstreams, null, 'k:agent', 9_500, 8_000, SYSTEM_PROMPT)).toBe(home);
    // Without the 6,000 elsewhere, moving is cheaper: the bound on requests holds.
    choice.ended(other, 6_000);
    expect(choice.pick(upstreams, null, 'k:agent', 10_000, 8_000, SYSTEM_PROMPT)).toBe(other);
  });

  it('a shared system prompt is charged only where it was not sent lately, and draws new sessions to an engine that holds it', () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.1);
    const warm = choice.pick(upstreams, null, null, 9_000, 8_000, SYSTEM_PROMPT)!;
    expect(choice.weight).toBe(9_000);
    for (let session = 0; session < 10; session++) {
      expect(choice.pick(upstreams, null, null, 8_500, 8_000, SYSTEM_PROMPT)).toBe(warm);
      expect(choice.weight).toBe(500);
    }
    // Its engine loaded past what the prompt costs elsewhere: the next goes elsewhere, charged all of it.
    choice.began(warm, 9_000);
    expect(choice.pick(upstreams, null, null, 8_500, 8_000, SYSTEM_PROMPT)).not.toBe(warm);
    expect(choice.weight).toBe(8_500);
    // A prompt without a system message shares nothing: charged in full.
    choice.pick(upstreams, null, null, 3_000, 0, 0);
    expect(choice.weight).toBe(3_000);
  });

  it('a new conversation leaves its hashed engine for another when that one carries more than 1.25x the average tokens', () => {
    const { signals, choice, upstreams } = setup();
    for (const target of upstreams) signals.scores.set(target, 0.1);
    // Find where the conversation hashes on an idle fleet, then load that engine with prompt tokens.
    const { chosen: home, weight } = start(choice, upstreams, 'k:probe', 3_000);
    choice.ended(home, weight);
    const fresh = setup();
    for (const target of fresh.upstreams) fresh.signals.scores.set(target, 0.1);
    const hashedHome = fresh.upstreams[upstreams.indexOf(home)]!;
    fresh.choice.began(hashedHome, 3_000);
    // Its tokens and the request's (6,000) against 1.25 × (3,000 + 3,000) / 4: it goes elsewhere, and is remembered there.
    const moved = fresh.choice.pick(fresh.upstreams, null, 'k:probe', 3_000)!;
    expect(moved).not.toBe(hashedHome);
    expect(fresh.choice.pick(fresh.upstreams, null, 'k:probe', 3_000)).toBe(moved);
    // Without the load, the hash's engine takes it.
    expect(setupPick('k:probe')).toBe(upstreams.indexOf(home));
  });
});

/** Where a conversation goes on an idle fleet of four, by index. */
function setupPick(conversation: string): number {
  const { signals, choice, upstreams } = setup();
  for (const target of upstreams) signals.scores.set(target, 0.1);
  return upstreams.indexOf(choice.pick(upstreams, null, conversation, 3_000)!);
}

describe('EngineChoice: when the upstreams are full (the admission queue waits)', () => {
  it('is full at a saturated fresh sample, and not on a sample missing or stale (only the cap counts then)', () => {
    const { signals, choice, upstreams } = setup(2);
    const [a, b] = upstreams as [UpstreamConfig, UpstreamConfig];
    // FakeSignals: no score set is a missing sample (Infinity).
    expect(choice.isFull(a)).toBe(false);
    signals.scores.set(a, 1.5);
    signals.scores.set(b, 0.4);
    expect(choice.isFull(a)).toBe(true);
    expect(choice.isFull(b)).toBe(false);
    expect(choice.allFull(upstreams)).toBe(false);
    choice.pick(upstreams, null, null);
    expect(choice.full).toBe(false);
    signals.scores.set(b, 1);
    expect(choice.allFull(upstreams)).toBe(true);
    choice.pick(upstreams, null, null);
    expect(choice.full).toBe(true);
  });

  it('is full at maxConcurrent in flight, with or without an engine, and its saturation counts that share', () => {
    const { inFlight, signals, choice } = setup(0);
    const capped: UpstreamConfig = { ...upstream('capped', undefined), maxConcurrent: 2 };
    const engineCapped: UpstreamConfig = { ...upstream('engine-capped'), maxConcurrent: 2 };
    signals.scores.set(capped, null);
    signals.scores.set(engineCapped, 0.1);
    inFlight.begin(capped);
    inFlight.begin(engineCapped);
    expect(choice.isFull(capped)).toBe(false);
    expect(choice.saturation(capped)).toBe(0.5);
    expect(choice.saturation(engineCapped)).toBe(0.5);
    inFlight.begin(capped);
    inFlight.begin(engineCapped);
    expect(choice.isFull(capped)).toBe(true);
    expect(choice.isFull(engineCapped)).toBe(true);
    expect(choice.saturation(capped)).toBe(1);
  });

  it('is never full with no healthy upstream: the request then fails at once, as without a queue', () => {
    const { health, signals, choice, upstreams } = setup(1);
    const [a] = upstreams as [UpstreamConfig];
    signals.scores.set(a, 2);
    expect(choice.allFull(upstreams)).toBe(true);
    health.begin(a);
    health.end(a, 'failed');
    expect(choice.allFull(upstreams)).toBe(false);
    choice.pick(upstreams, null, null);
    expect(choice.full).toBe(false);
  });
});
