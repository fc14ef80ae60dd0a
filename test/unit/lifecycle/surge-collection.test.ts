import { setImmediate as nextTask } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { type CollectionReport, collectAfterSurges, fullCollection, GROWN_BYTES, SETTLED_AFTER_MS, SURGE_IN_FLIGHT, SurgeWatch } from '../../../src/lifecycle/surge-collection.ts';

const MiB = 2 ** 20;

describe('SurgeWatch', () => {
  // In-flight counts, one per check, no request begun between checks, at a steady 100 MiB resident.
  const feed = (watch: SurgeWatch, counts: number[]) => counts.map((inFlight) => watch.check({ inFlight, begun: 0 }, 100 * MiB)?.peakInFlight ?? null);
  const quiet = { inFlight: 0, begun: 0 };
  const busy = { inFlight: 50, begun: 0 };

  it('calls for one collection once a surge of requests has been quiet for two checks', () => {
    // 600 is above a tenth of the 5,000 peak; 400 is the first quiet check, 300 the second. The
    // next surge is measured from 300: falling further is not one.
    expect(feed(new SurgeWatch(), [10, 5_000, 4_000, 600, 400, 300, 200, 100, 0])).toEqual([null, null, null, null, null, 5_000, null, null, null]);
    const watch = new SurgeWatch();
    feed(watch, [SURGE_IN_FLIGHT, 0]);
    expect(watch.check(quiet, 100 * MiB)).toEqual({ peakInFlight: SURGE_IN_FLIGHT, peakBegun: 0, cause: 'requests' });
  });

  it('never calls for one below a surge of requests while memory stays put, however traffic falls', () => {
    expect(feed(new SurgeWatch(), [SURGE_IN_FLIGHT - 1, 0, 0, 0, 0])).toEqual([null, null, null, null, null]);
  });

  it('calls again after the next surge', () => {
    const watch = new SurgeWatch();
    expect(feed(watch, [SURGE_IN_FLIGHT * 2, 0, 0, 0])).toEqual([null, null, SURGE_IN_FLIGHT * 2, null]);
    expect(feed(watch, [SURGE_IN_FLIGHT, 50, 50])).toEqual([null, null, SURGE_IN_FLIGHT]);
  });

  it('starts over when traffic rises again between quiet checks', () => {
    expect(feed(new SurgeWatch(), [SURGE_IN_FLIGHT * 2, 0, SURGE_IN_FLIGHT, 0, 0])).toEqual([null, null, null, null, SURGE_IN_FLIGHT * 2]);
  });

  it('counts a small busy spell as a surge when it left resident memory well above its level at rest', () => {
    const watch = new SurgeWatch();
    watch.check(quiet, 150 * MiB); // at rest: 150 MiB
    watch.check(busy, 170 * MiB);
    watch.check(quiet, 150 * MiB + GROWN_BYTES); // first quiet check
    expect(watch.check(quiet, 150 * MiB + GROWN_BYTES)).toEqual({ peakInFlight: 50, peakBegun: 0, cause: 'memory' });
  });

  it('does not for growth below the threshold, nor without traffic', () => {
    const watch = new SurgeWatch();
    watch.check(quiet, 150 * MiB);
    watch.check(busy, 170 * MiB);
    watch.check(quiet, 150 * MiB + GROWN_BYTES - 1);
    expect(watch.check(quiet, 150 * MiB + GROWN_BYTES - 1)).toBeNull();
    const idle = new SurgeWatch();
    idle.check(quiet, 150 * MiB);
    idle.check(quiet, 250 * MiB);
    expect(idle.check(quiet, 250 * MiB)).toBeNull();
  });

  it('is not fooled by a steady rate of short requests, none of them in flight at a check', () => {
    const watch = new SurgeWatch();
    watch.check(quiet, 150 * MiB);
    const steady = { inFlight: 0, begun: 1_000 };
    // Memory grows under the load (V8 collects on its own schedule then): no collection mid-run.
    for (let second = 0; second < 10; second++) expect(watch.check(steady, 150 * MiB + GROWN_BYTES * 2)).toBeNull();
    // A tenth of the rate is still traffic that a pause would hold up.
    expect(watch.check({ inFlight: 0, begun: 101 }, 150 * MiB + GROWN_BYTES * 2)).toBeNull();
    expect(watch.check({ inFlight: 0, begun: 101 }, 150 * MiB + GROWN_BYTES * 2)).toBeNull();
    watch.check({ inFlight: 0, begun: 100 }, 150 * MiB + GROWN_BYTES * 2);
    expect(watch.check(quiet, 150 * MiB + GROWN_BYTES * 2)).toEqual({ peakInFlight: 0, peakBegun: 1_000, cause: 'memory' });
  });

  it('measures later growth from where memory settled after a collection', () => {
    const watch = new SurgeWatch();
    watch.check(quiet, 150 * MiB);
    watch.settled(200 * MiB); // what the collection could not return is the new level
    watch.check(busy, 220 * MiB);
    watch.check(quiet, 220 * MiB);
    expect(watch.check(quiet, 220 * MiB)).toBeNull();
    watch.check(busy, 240 * MiB);
    watch.check(quiet, 200 * MiB + GROWN_BYTES);
    expect(watch.check(quiet, 200 * MiB + GROWN_BYTES)).toEqual({ peakInFlight: 50, peakBegun: 0, cause: 'memory' });
  });
});

describe('fullCollection', () => {
  it('collects what nothing refers to any more, without exposing gc to this context', async () => {
    const collect = fullCollection();
    let garbage: object | null = { payload: new Array(1_000).fill('x') };
    const ref = new WeakRef(garbage);
    garbage = null;
    // A WeakRef keeps its target alive until the current task ends (and so does each deref()).
    await nextTask();
    collect();
    expect(ref.deref()).toBeUndefined();
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});

/** What a collectAfterSurges run did, in order: release, trim, collected. */
function recorder() {
  const steps: string[] = [];
  const reports: CollectionReport[] = [];
  return {
    steps,
    reports,
    release: async () => { steps.push('release'); },
    onCollected: (report: CollectionReport) => { steps.push('collected'); reports.push(report); },
  };
}

describe('collectAfterSurges', () => {
  it('releases, then collects and reports, once per surge', async () => {
    vi.useFakeTimers();
    try {
      const counts = [SURGE_IN_FLIGHT * 3, SURGE_IN_FLIGHT, 10, 0, 0, 0, 0];
      const { steps, reports, release, onCollected } = recorder();
      const stop = collectAfterSurges({ inFlight: () => counts.shift() ?? 0, begun: () => 0, release, trim: null, onCollected });
      for (let second = 0; second < 7; second++) await vi.advanceTimersByTimeAsync(1_000);
      stop();
      expect(steps).toEqual(['release', 'collected']);
      expect(reports[0]).toMatchObject({ peakInFlight: SURGE_IN_FLIGHT * 3, cause: 'requests' });
      expect(reports[0]!.heapUsedAfter).toBeGreaterThan(0);
      expect(reports[0]!.trim).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('trims the allocator a second after the collection, and reports it', async () => {
    vi.useFakeTimers();
    try {
      const counts = [SURGE_IN_FLIGHT, 0, 0];
      const { steps, reports, release, onCollected } = recorder();
      const trim = () => { steps.push('trim'); return true; };
      const stop = collectAfterSurges({ inFlight: () => counts.shift() ?? 0, begun: () => 0, release, trim, onCollected });
      for (let second = 0; second < 3; second++) await vi.advanceTimersByTimeAsync(1_000);
      expect(steps).toEqual(['release']);
      await vi.advanceTimersByTimeAsync(1_000);
      stop();
      expect(steps).toEqual(['release', 'trim', 'collected']);
      expect(reports[0]!.trim!.rssBefore).toBeGreaterThan(0);
      expect(reports[0]!.trim!.rssAfter).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads the traffic from the running count of requests begun: no collection while they keep coming', async () => {
    vi.useFakeTimers();
    try {
      let begun = 0;
      let rate = 0;
      let rssMiB = 150;
      const reports: CollectionReport[] = [];
      const stop = collectAfterSurges({
        inFlight: () => 0,
        begun: () => (begun += rate),
        rss: () => rssMiB * MiB,
        release: async () => {},
        trim: null,
        onCollected: (report) => reports.push(report),
      });
      await vi.advanceTimersByTimeAsync(1_000); // at rest, 150 MiB
      rate = 1_000; // each check sees 1,000 more begun, and none in flight
      rssMiB = 200;
      for (let second = 0; second < 10; second++) await vi.advanceTimersByTimeAsync(1_000);
      expect(reports).toEqual([]);
      rate = 0;
      for (let second = 0; second < 3; second++) await vi.advanceTimersByTimeAsync(1_000);
      stop();
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ peakInFlight: 0, peakBegun: 1_000, cause: 'memory' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('after a spell that only left memory behind, collects without renewing the pools, then measures from where memory settled', async () => {
    vi.useFakeTimers();
    try {
      // At rest at 150 MiB, a spell of 50 in flight, then quiet at 200 MiB: a surge by memory.
      const samples: [number, number][] = [[0, 150], [50, 180], [0, 200], [0, 200]];
      let rssMiB = 200;
      const { steps, reports, release, onCollected } = recorder();
      const stop = collectAfterSurges({
        inFlight: () => { const next = samples.shift(); if (next) rssMiB = next[1]; return next?.[0] ?? 0; },
        begun: () => 0,
        rss: () => rssMiB * MiB,
        release,
        trim: null,
        onCollected: (report) => { onCollected(report); rssMiB = 230; },
      });
      for (let second = 0; second < 4; second++) await vi.advanceTimersByTimeAsync(1_000);
      expect(steps).toEqual(['collected']);
      expect(reports[0]).toMatchObject({ peakInFlight: 50, peakBegun: 0, cause: 'memory' });
      // Memory settles at 230 MiB (what the collection could not return): the same level after
      // another spell is no surge.
      await vi.advanceTimersByTimeAsync(SETTLED_AFTER_MS);
      samples.push([50, 240], [0, 230], [0, 230]);
      for (let second = 0; second < 4; second++) await vi.advanceTimersByTimeAsync(1_000);
      stop();
      expect(steps).toEqual(['collected']);
    } finally {
      vi.useRealTimers();
    }
  });
});
