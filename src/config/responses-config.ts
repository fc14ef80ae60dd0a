// Stored Responses: the file's `responses` over the defaults, and from the environment
// MUNJA_RESPONSES_TTL_SECONDS and MUNJA_RESPONSES_MAX_STORED_BYTES, which win over the file.
import { ConfigError } from './config-error.ts';
import { RESPONSES_FILE_SCHEMA } from './config-schema.ts';
import type { ConfigFile } from './config-file.ts';
import type { ResponsesConfig } from './config-types.ts';
import { DEFAULT_RESPONSES } from './default-config.ts';
import type { Env } from './load-config.ts';

const BOUNDS = RESPONSES_FILE_SCHEMA.properties;

export function responsesFrom(file: ConfigFile['responses'] = {}, env: Env = {}): ResponsesConfig {
  return {
    ttlSeconds: integerFrom('MUNJA_RESPONSES_TTL_SECONDS', env.MUNJA_RESPONSES_TTL_SECONDS, BOUNDS.ttlSeconds)
      ?? file.ttlSeconds ?? DEFAULT_RESPONSES.ttlSeconds,
    maxStoredBytesPerAccount: integerFrom('MUNJA_RESPONSES_MAX_STORED_BYTES', env.MUNJA_RESPONSES_MAX_STORED_BYTES, BOUNDS.maxStoredBytesPerAccount)
      ?? file.maxStoredBytesPerAccount ?? DEFAULT_RESPONSES.maxStoredBytesPerAccount,
  };
}

/** Undefined when unset or blank. */
function integerFrom(name: string, raw: string | undefined, bounds: { minimum: number; maximum: number }): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < bounds.minimum || value > bounds.maximum) {
    throw new ConfigError(`${name} must be an integer from ${bounds.minimum} to ${bounds.maximum}, got "${raw}"`);
  }
  return value;
}
