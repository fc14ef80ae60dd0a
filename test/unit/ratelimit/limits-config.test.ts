// The config file's `limits` section: defaults, the limiter settings, and refusals.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.ts';

const dir = mkdtempSync(join(tmpdir(), 'munja-limits-'));
function withLimits(limits: unknown): { MUNJA_CONFIG: string } {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify({ limits }));
  return { MUNJA_CONFIG: path };
}

describe('limits settings', () => {
  it('defaults: 64 concurrent requests per key, an account gets what one key gets, open-local, the live fleet', () => {
    expect(loadConfig({}).limits).toEqual({
      rpm: 600, tpm: 1_000_000, concurrency: 64, account: { rpm: 600, tpm: 1_000_000 }, failMode: 'open-local', failClosed: [], expectedInstances: null,
    });
  });

  it('gives an account the per-key limits the file sets, unless it sets the account’s; null turns them off', () => {
    expect(loadConfig(withLimits({ rpm: 60, tpm: 1000 })).limits.account).toEqual({ rpm: 60, tpm: 1000 });
    expect(loadConfig(withLimits({ rpm: 60, account: { rpm: 100, tpm: 5000 } })).limits.account).toEqual({ rpm: 100, tpm: 5000 });
    expect(loadConfig(withLimits({ account: null })).limits.account).toBeNull();
  });

  it('takes every setting from the file', () => {
    const limits = { rpm: 60, tpm: 1000, concurrency: 8, account: { rpm: 100, tpm: 5000 }, failMode: 'closed', failClosed: ['key_x'], expectedInstances: 3 };
    expect(loadConfig(withLimits(limits)).limits).toEqual(limits);
  });

  it('accepts a concurrency of 0: no cap', () => {
    expect(loadConfig(withLimits({ concurrency: 0 })).limits.concurrency).toBe(0);
  });

  it.each([
    ['a negative concurrency', { concurrency: -1 }, /limits\.concurrency/],
    ['an account without tpm', { account: { rpm: 1 } }, /limits\.account/],
    ['an unknown fail mode', { failMode: 'open' }, /limits\.failMode/],
    ['zero instances', { expectedInstances: 0 }, /limits\.expectedInstances/],
    ['an unknown setting', { deadlineMs: 5 }, /"deadlineMs"/],
  ])('refuses %s, naming the field', (_name, limits, message) => {
    expect(() => loadConfig(withLimits(limits))).toThrow(message);
  });
});
