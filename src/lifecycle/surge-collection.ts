// When traffic falls quiet after a surge, an idle process would keep the surge's memory:
// - What the requests used is garbage in V8's old generation, and an idle process allocates
//   nothing, so V8 starts no major collection (measured: 9,000 streams closed, 164 MB of heap still
//   "used" 30 s later, RSS 301 MiB against 136 idle).
// - V8 keeps the pages freed by its collections during the load in a pool, resident, until its
//   memory reducer runs; the reducer is armed by a full collection, so a process that went idle
//   after its last one never runs it (measured after a 60 s soak of 50 concurrent streams: RSS
//   205 MiB against 158 before it; one forced full collection took it to 135).
// - glibc keeps the freed native memory of sockets and buffers in its arenas (malloc-trim.ts).
// So once traffic is quiet after a surge — thousands of requests in flight, or any busy spell that
// left resident memory well above its settled level — this lets the app release what the surge left
// (the upstream pools' idle connection objects, after a surge of thousands), runs one full
// collection (40–80 ms with 9,000 streams' garbage; the memory reducer then returns the pages within
// about ten seconds; V8's "last resort" collection returns them at once but paused 211 ms), and
// a second later trims glibc's arenas.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MallocTrim } from './malloc-trim.ts';

/** Requests in flight that make a surge whatever the memory does; the upstream pools are renewed after one. */
export const SURGE_IN_FLIGHT = 1_000;
/** Resident memory this far above its settled level makes any busy spell a surge. */
export const GROWN_BYTES = 32 * 2 ** 20;
/**
 * Traffic is quiet when both the requests in flight and those begun since the last check are at
 * most this share of the spell's peaks. In flight alone is not enough: a steady 1,000 requests a
 * second of 0.5 ms each has none in flight at most checks (measured: a 46 ms collection in the
 * middle of such a run).
 */
const QUIET_SHARE = 0.1;
const CHECK_EVERY_MS = 1_000;
/** V8 frees the backing stores of collected buffers on a background thread after the collection. */
const TRIM_AFTER_MS = 1_000;
/** When resident memory has settled after a collection and trim (the memory reducer has run). */
export const SETTLED_AFTER_MS = 15_000;

/** One check's view of the traffic. */
export interface Traffic {
  readonly inFlight: number;
  /** Requests begun since the previous check. */
  readonly begun: number;
}

export interface Surge {
  readonly peakInFlight: number;
  /** The most requests begun between two checks (a second apart) during the spell. */
  readonly peakBegun: number;
  /** Thousands in flight ('requests'), or resident memory well above its settled level ('memory'). */
  readonly cause: 'requests' | 'memory';
}

export interface CollectionReport extends Surge {
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  readonly pauseMs: number;
  /** Set when the allocator was trimmed: resident memory around the trim, and how long it took. */
  readonly trim?: { readonly rssBefore: number; readonly rssAfter: number; readonly pauseMs: number };
}

/** Decides when a surge has passed: fed the traffic and resident memory once a second. */
export class SurgeWatch {
  #peak = 0;
  #peakBegun = 0;
  #quietChecks = 0;
  /** Resident memory at rest: the lowest seen when quiet, reset when it settles after a collection. */
  #settledRss = Infinity;

  /**
   * The surge that has just passed (at the second quiet check in a row), else null. A quiet spell
   * that was no surge starts the next spell; so does a surge.
   */
  check(traffic: Traffic, rssBytes: number): Surge | null {
    this.observe(traffic);
    if (traffic.inFlight > this.#peak * QUIET_SHARE || traffic.begun > this.#peakBegun * QUIET_SHARE) {
      this.#quietChecks = 0;
      return null;
    }
    this.#settledRss = Math.min(this.#settledRss, rssBytes);
    if (++this.#quietChecks < 2) return null;
    const peakInFlight = this.#peak;
    const peakBegun = this.#peakBegun;
    this.#peak = traffic.inFlight;
    this.#peakBegun = traffic.begun;
    this.#quietChecks = 0;
    if (peakInFlight >= SURGE_IN_FLIGHT) return { peakInFlight, peakBegun, cause: 'requests' };
    const busy = peakInFlight > 0 || peakBegun > 0;
    if (busy && rssBytes >= this.#settledRss + GROWN_BYTES) return { peakInFlight, peakBegun, cause: 'memory' };
    return null;
  }

  /** Only records the peaks (while a collection is under way). */
  observe(traffic: Traffic): void {
    this.#peak = Math.max(this.#peak, traffic.inFlight);
    this.#peakBegun = Math.max(this.#peakBegun, traffic.begun);
  }

  /** Resident memory once a collection's effect has settled: what later growth is measured from. */
  settled(rssBytes: number): void {
    this.#settledRss = rssBytes;
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
  /** Requests begun so far (a running count). */
  readonly begun: () => number;
  /** Lets go of what a surge of thousands of requests left that would otherwise stay (run before the collection). */
  readonly release: () => Promise<void>;
  /** Run a second after the collection; null where it is not available. */
  readonly trim: MallocTrim | null;
  readonly onCollected: (report: CollectionReport) => void;
  /** Resident memory now (the process's own, unless told). */
  readonly rss?: () => number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function collectAfterSurges({ inFlight, begun, release, trim, onCollected, rss = process.memoryUsage.rss }: SurgeCollectionOptions): () => void {
  const watch = new SurgeWatch();
  // Fetched at the first surge: making the context costs ~1.6 ms, which most processes never need.
  let collect: (() => void) | null = null;
  let collecting = false;
  let begunBefore = begun();
  const traffic = (): Traffic => {
    const begunNow = begun();
    const sample = { inFlight: inFlight(), begun: begunNow - begunBefore };
    begunBefore = begunNow;
    return sample;
  };
  const timer = setInterval(() => {
    // A collection is under way until its effect has settled, so a spell cannot trigger another
    // on memory the first has not returned yet.
    if (collecting) return watch.observe(traffic());
    const surge = watch.check(traffic(), rss());
    if (surge === null) return;
    collecting = true;
    void collectAfter(surge).finally(() => { collecting = false; });
  }, CHECK_EVERY_MS).unref();

  async function collectAfter(surge: Surge): Promise<void> {
    if (surge.cause === 'requests') await release().catch(() => {});
    collect ??= fullCollection();
    const heapUsedBefore = process.memoryUsage().heapUsed;
    const began = performance.now();
    collect();
    const pauseMs = performance.now() - began;
    const report: CollectionReport = { ...surge, heapUsedBefore, heapUsedAfter: process.memoryUsage().heapUsed, pauseMs };
    if (trim === null) {
      onCollected(report);
    } else {
      await sleep(TRIM_AFTER_MS);
      const rssBefore = rss();
      const trimBegan = performance.now();
      trim();
      const trimPauseMs = performance.now() - trimBegan;
      onCollected({ ...report, trim: { rssBefore, rssAfter: rss(), pauseMs: trimPauseMs } });
    }
    await sleep(SETTLED_AFTER_MS);
    watch.settled(rss());
  }

  return () => clearInterval(timer);
}
