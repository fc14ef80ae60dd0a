// The response cache's bounds: the file's `cache` over the defaults, and from the environment
// MUNJA_CACHE_MAX_BYTES, which wins over the file.
import { ConfigError } from './config-error.ts';
import { CACHE_FILE_SCHEMA } from './config-schema.ts';
import type { ConfigFile, ModelFile } from './config-file.ts';
import type { CacheConfig, ModelCacheConfig } from './config-types.ts';
import { DEFAULT_CACHE, DEFAULT_CACHE_TTL_SECONDS } from './default-config.ts';
import type { Env } from './load-config.ts';

const BOUNDS = CACHE_FILE_SCHEMA.properties;

export function cacheFrom(file: ConfigFile['cache'] = {}, env: Env = {}): CacheConfig {
  return {
    maxBytes: maxBytesFrom(env.MUNJA_CACHE_MAX_BYTES) ?? file.maxBytes ?? DEFAULT_CACHE.maxBytes,
    maxEntryBytes: file.maxEntryBytes ?? DEFAULT_CACHE.maxEntryBytes,
    singleFlightWaitMs: file.singleFlightWaitMs ?? DEFAULT_CACHE.singleFlightWaitMs,
    maxAccountShare: file.maxAccountShare ?? DEFAULT_CACHE.maxAccountShare,
  };
}

/** A model's `cache`, or null when the file gives none. */
export function modelCacheFrom(file: ModelFile['cache']): ModelCacheConfig | null {
  if (file === undefined) return null;
  return { enabled: file.enabled ?? true, ttlSeconds: file.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS, deterministicOnly: file.deterministicOnly ?? true };
}

/** Undefined when unset or blank. */
function maxBytesFrom(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  const { minimum, maximum } = BOUNDS.maxBytes;
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new ConfigError(`MUNJA_CACHE_MAX_BYTES must be an integer from ${minimum} to ${maximum}, got "${raw}"`);
  }
  return value;
}
