import { setImmediate as nextTask } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { type CollectionReport, collectAfterSurges, fullCollection, SURGE_IN_FLIGHT, SurgeWatch } from '../../../src/lifecycle/surge-collection.ts';

describe('SurgeWatch', () => {
  const feed = (watch: SurgeWatch, counts: number[]) => counts.map((inFlight) => watch.check(inFlight));

  it('calls for one collection once a surge has been quiet for two checks', () => {
    // 600 is above a tenth of the 5,000 peak; 400 is the first quiet check, 300 the second. The
    // next surge is measured from 300: falling further is not one.
    expect(feed(new SurgeWatch(), [10, 5_000, 4_000, 600, 400, 300, 200, 100, 0])).toEqual([null, null, null, null, null, 5_000, null, null, null]);
  });

  it('never calls for one below a surge, however traffic falls', () => {
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

describe('collectAfterSurges', () => {
  it('releases, then collects and reports, once per surge', async () => {
    vi.useFakeTimers();
    try {
      const counts = [SURGE_IN_FLIGHT * 3, SURGE_IN_FLIGHT, 10, 0, 0, 0, 0];
      const steps: string[] = [];
      const reports: CollectionReport[] = [];
      const stop = collectAfterSurges({
        inFlight: () => counts.shift() ?? 0,
        release: async () => { steps.push('release'); },
        onCollected: (report) => { steps.push('collected'); reports.push(report); },
      });
      for (let second = 0; second < 7; second++) await vi.advanceTimersByTimeAsync(1_000);
      stop();
      expect(steps).toEqual(['release', 'collected']);
      expect(reports[0]).toMatchObject({ peakInFlight: SURGE_IN_FLIGHT * 3 });
      expect(reports[0]!.heapUsedAfter).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
