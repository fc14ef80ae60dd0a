import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import type { Store, UsageDelta } from '../../../src/store/store.ts';
import { UsageRecorder } from '../../../src/store/usage-recorder.ts';

function recorder() {
  const written: UsageDelta[] = [];
  const store = {
    async addUsage(deltas: readonly UsageDelta[]) { written.push(...deltas); },
    async markKeysUsed() {},
  } as unknown as Store;
  return { usage: new UsageRecorder(store, createLogger('silent').logger, 60_000), written };
}

describe('UsageRecorder', () => {
  it('sums requests and tokens per key and UTC day, across day boundaries in either direction', async () => {
    const { usage, written } = recorder();
    const day1 = Date.UTC(2026, 10, 20, 23, 59, 59, 999);
    const day2 = day1 + 1;
    usage.record('key_a', 10, 5, day1);
    usage.record('key_a', 1, 2, day2);
    usage.record('key_a', 3, 4, day1 - 3_600_000);
    usage.record('key_b', 7, 0, day2 + 86_399_999);
    usage.record('key_b', 1, 1, day2 + 86_400_000);
    await usage.close();
    expect(written).toEqual([
      { keyId: 'key_a', day: '2026-11-20', requests: 2, promptTokens: 13, completionTokens: 9 },
      { keyId: 'key_a', day: '2026-11-21', requests: 1, promptTokens: 1, completionTokens: 2 },
      { keyId: 'key_b', day: '2026-11-21', requests: 1, promptTokens: 7, completionTokens: 0 },
      { keyId: 'key_b', day: '2026-11-22', requests: 1, promptTokens: 1, completionTokens: 1 },
    ]);
  });
});
