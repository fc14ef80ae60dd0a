import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import type { Store, UsageDelta } from '../../../src/store/store.ts';
import { UsageRecorder } from '../../../src/store/usage-recorder.ts';

function recorder() {
  const written: UsageDelta[] = [];
  let writes = 0;
  let fail = false;
  const store = {
    async addUsage(deltas: readonly UsageDelta[]) {
      writes++;
      if (fail) {
        fail = false;
        throw new Error('store down');
      }
      written.push(...deltas);
    },
    async markKeysUsed() {},
  } as unknown as Store;
  return {
    usage: new UsageRecorder(store, createLogger('silent').logger, 60_000), written,
    writes: () => writes, failNext: () => { fail = true; },
  };
}

describe('UsageRecorder', () => {
  it('sums requests and tokens per key and UTC day, across day boundaries in either direction', async () => {
    const { usage, written } = recorder();
    const day1 = Date.UTC(2026, 10, 20, 23, 59, 59, 999);
    const day2 = day1 + 1;
    usage.record('key_a', 'm', 10, 5, 0, day1);
    usage.record('key_a', 'm', 1, 2, 0, day2);
    usage.record('key_a', 'm', 3, 4, 0, day1 - 3_600_000);
    usage.record('key_b', 'm', 7, 0, 0, day2 + 86_399_999);
    usage.record('key_b', 'm', 1, 1, 0, day2 + 86_400_000);
    await usage.close();
    expect(written).toEqual([
      { keyId: 'key_a', day: '2026-11-20', model: 'm', requests: 2, promptTokens: 13, completionTokens: 9, costMicros: 0 },
      { keyId: 'key_a', day: '2026-11-21', model: 'm', requests: 1, promptTokens: 1, completionTokens: 2, costMicros: 0 },
      { keyId: 'key_b', day: '2026-11-21', model: 'm', requests: 1, promptTokens: 7, completionTokens: 0, costMicros: 0 },
      { keyId: 'key_b', day: '2026-11-22', model: 'm', requests: 1, promptTokens: 1, completionTokens: 1, costMicros: 0 },
    ]);
  });

  it('keeps each model of a key and day apart, with its cost, in one write per flush', async () => {
    const { usage, written, writes } = recorder();
    const now = Date.UTC(2026, 10, 20, 12);
    usage.record('key_a', 'small', 10, 5, 100, now);
    usage.record('key_a', 'large', 1, 2, 900, now);
    usage.record('key_a', 'small', 3, 4, 50, now);
    await usage.flush();
    expect(writes()).toBe(1);
    expect(written).toEqual([
      { keyId: 'key_a', day: '2026-11-20', model: 'small', requests: 2, promptTokens: 13, completionTokens: 9, costMicros: 150 },
      { keyId: 'key_a', day: '2026-11-20', model: 'large', requests: 1, promptTokens: 1, completionTokens: 2, costMicros: 900 },
    ]);
  });

  it('keeps a failed write, model and cost included, for the next flush', async () => {
    const { usage, written, failNext } = recorder();
    const now = Date.UTC(2026, 10, 20, 12);
    usage.record('key_a', 'small', 10, 5, 100, now);
    failNext();
    await usage.flush();
    expect(written).toEqual([]);
    usage.record('key_a', 'small', 1, 1, 7, now);
    await usage.close();
    expect(written).toEqual([
      { keyId: 'key_a', day: '2026-11-20', model: 'small', requests: 2, promptTokens: 11, completionTokens: 6, costMicros: 107 },
    ]);
  });
});
