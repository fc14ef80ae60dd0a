import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/load-config.ts';

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'munja-cache-config-')), 'munja.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('response cache settings', () => {
  it('hold 256 MiB, half of it per account, 8 MiB a reply, and wait 30 s for an identical request by default; no model caches', () => {
    const config = loadConfig({});
    expect(config.cache).toEqual({ maxBytes: 268_435_456, maxEntryBytes: 8_388_608, singleFlightWaitMs: 30_000, maxAccountShare: 0.5 });
    expect(config.models.every((model) => model.cache === null)).toBe(true);
  });

  it('are read from the file, and MUNJA_CACHE_MAX_BYTES wins over it (0: off)', () => {
    expect(loadConfig({}, { cache: { maxBytes: 1024, singleFlightWaitMs: 0, maxAccountShare: 1 } }).cache).toEqual({ maxBytes: 1024, maxEntryBytes: 8_388_608, singleFlightWaitMs: 0, maxAccountShare: 1 });
    expect(loadConfig({ MUNJA_CACHE_MAX_BYTES: '0' }, { cache: { maxBytes: 1024 } }).cache.maxBytes).toBe(0);
  });

  it('give a model its cache: on with a 10-minute TTL for deterministic requests unless it says otherwise', () => {
    const config = loadConfig({}, { models: { a: { local: {}, cache: {} }, b: { local: {}, cache: { enabled: false, ttlSeconds: 5, deterministicOnly: false } } } });
    expect(config.models.find((model) => model.id === 'a')?.cache).toEqual({ enabled: true, ttlSeconds: 600, deterministicOnly: true });
    expect(config.models.find((model) => model.id === 'b')?.cache).toEqual({ enabled: false, ttlSeconds: 5, deterministicOnly: false });
  });

  it.each(['-1', '1.5', '1GiB'])('refuses MUNJA_CACHE_MAX_BYTES=%s', (value) => {
    expect(() => loadConfig({ MUNJA_CACHE_MAX_BYTES: value })).toThrow(ConfigError);
  });

  it('refuses an unknown field or a TTL out of range', () => {
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ models: { a: { local: {}, cache: { ttl: 5 } } } }) })).toThrow(ConfigError);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ models: { a: { local: {}, cache: { ttlSeconds: 0 } } } }) })).toThrow(ConfigError);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ cache: { maxEntryBytes: 10 } }) })).toThrow(ConfigError);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ cache: { maxAccountShare: 0 } }) })).toThrow(ConfigError);
    expect(() => loadConfig({ MUNJA_CONFIG: configFile({ cache: { maxAccountShare: 1.5 } }) })).toThrow(ConfigError);
    expect(loadConfig({ MUNJA_CONFIG: configFile({ models: { a: { local: {}, cache: { ttlSeconds: 60 } } } }) }).models.find((model) => model.id === 'a')?.cache?.ttlSeconds).toBe(60);
  });
});
