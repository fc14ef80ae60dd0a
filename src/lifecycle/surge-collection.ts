// After a surge (thousands of streams open at once), what those requests used is garbage in V8's
// old generation, and an idle process allocates nothing, so V8 starts no major collection: the
// heap stays at the surge's size for as long as traffic stays low (measured: 9,000 streams closed,
// 164 MB of heap still "used" 30 s later, RSS 301 MiB against 136 idle). Once a surge has passed,
// this runs one full collection (43 ms with 9,000 streams' garbage); V8's memory reducer, which a
// full collection arms, then returns the freed pages within about ten seconds (same run: heap
// 46 MB, RSS 175 MiB). V8's "last resort" collection returns them at once but paused 211 ms.
// Before collecting, it lets the app release what the surge left that would otherwise be kept
// (the upstream pools' idle connection objects).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Requests in flight that make a surge worth collecting after. */
export const SURGE_IN_FLIGHT = 1_000;
/** The surge has passed when in-flight requests are at most this share of its peak. */
const PASSED_SHARE = 0.1;
const CHECK_EVERY_MS = 1_000;

export interface CollectionReport {
  readonly peakInFlight: number;
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  readonly pauseMs: number;
}

/** Decides when a surge has passed: fed the in-flight count once a second. */
export class SurgeWatch {
  #peak = 0;
  #quietChecks = 0;

  /**
   * The peak of a surge that has just passed (at the second quiet check in a row), else null.
   * The next surge is measured from what is in flight then.
   */
  check(inFlight: number): number | null {
    this.#peak = Math.max(this.#peak, inFlight);
    if (this.#peak < SURGE_IN_FLIGHT || inFlight > this.#peak * PASSED_SHARE) {
      this.#quietChecks = 0;
      return null;
    }
    if (++this.#quietChecks < 2) return null;
    const peak = this.#peak;
    this.#peak = inFlight;
    this.#quietChecks = 0;
    return peak;
  }
}

/**
 * V8's own full collection, without `--expose-gc` on the command line: the flag is set only while
 * a fresh context is made to fetch `gc`, so no other context ever sees it.
 */
export function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major' }) => void;
  setFlagsFromString('--no-expose-gc');
  return () => gc({ type: 'major' });
}

export interface SurgeCollectionOptions {
  /** Requests in flight now. */
  readonly inFlight: () => number;
  /** Lets go of what the surge left that would otherwise stay (run before the collection). */
  readonly release: () => Promise<void>;
  readonly onCollected: (report: CollectionReport) => void;
}

export function collectAfterSurges({ inFlight, release, onCollected }: SurgeCollectionOptions): () => void {
  const watch = new SurgeWatch();
  // Fetched at the first surge: making the context costs ~1.6 ms, which most processes never need.
  let collect: (() => void) | null = null;
  let collecting = false;
  const timer = setInterval(() => {
    if (collecting) return;
    const peakInFlight = watch.check(inFlight());
    if (peakInFlight === null) return;
    collecting = true;
    void release().finally(() => {
      collecting = false;
      collect ??= fullCollection();
      const heapUsedBefore = process.memoryUsage().heapUsed;
      const began = performance.now();
      collect();
      const pauseMs = performance.now() - began;
      onCollected({ peakInFlight, heapUsedBefore, heapUsedAfter: process.memoryUsage().heapUsed, pauseMs });
    });
  }, CHECK_EVERY_MS).unref();
  return () => clearInterval(timer);
}
