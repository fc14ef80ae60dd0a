import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, validateConfigFile } from '../../../src/config/load-config.ts';

function configFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'munja-responses-config-')), 'munja.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('stored Responses settings', () => {
  it('keep a response 30 days and 256 MiB per account by default, frozen', () => {
    const config = loadConfig({});
    expect(config.responses).toEqual({ ttlSeconds: 2_592_000, maxStoredBytesPerAccount: 268_435_456 });
    expect(Object.isFrozen(config.responses)).toBe(true);
  });

  it('are read from the file\'s responses, and the environment wins over it', () => {
    const file = configFile({ responses: { ttlSeconds: 3_600, maxStoredBytesPerAccount: 1_048_576 } });
    expect(loadConfig({ MUNJA_CONFIG: file }).responses).toEqual({ ttlSeconds: 3_600, maxStoredBytesPerAccount: 1_048_576 });
    expect(loadConfig({ MUNJA_CONFIG: file, MUNJA_RESPONSES_TTL_SECONDS: '60' }).responses).toEqual({ ttlSeconds: 60, maxStoredBytesPerAccount: 1_048_576 });
    expect(loadConfig({ MUNJA_RESPONSES_MAX_STORED_BYTES: ' 1099511627776 ', MUNJA_RESPONSES_TTL_SECONDS: '' }).responses)
      .toEqual({ ttlSeconds: 2_592_000, maxStoredBytesPerAccount: 2 ** 40 });
    expect(loadConfig({}, { responses: { ttlSeconds: 1 } }).responses.ttlSeconds).toBe(1);
  });

  it.each([
    ['MUNJA_RESPONSES_TTL_SECONDS', '0', 'an integer from 1 to 31536000'],
    ['MUNJA_RESPONSES_TTL_SECONDS', '31536001', 'an integer from 1 to 31536000'],
    ['MUNJA_RESPONSES_TTL_SECONDS', '1.5', 'an integer from 1 to 31536000'],
    ['MUNJA_RESPONSES_TTL_SECONDS', '30d', 'an integer from 1 to 31536000'],
    ['MUNJA_RESPONSES_MAX_STORED_BYTES', '-1', 'an integer from 1 to 1099511627776'],
    ['MUNJA_RESPONSES_MAX_STORED_BYTES', '256MiB', 'an integer from 1 to 1099511627776'],
    ['MUNJA_RESPONSES_MAX_STORED_BYTES', '1099511627777', 'an integer from 1 to 1099511627776'],
  ])('refuses %s=%s, naming the setting and its range', (name, value, range) => {
    const load = () => loadConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`${name} must be ${range}, got "${value}"`);
  });

  it.each([
    [{ responses: { ttlSeconds: 0 } }, 'responses.ttlSeconds must be >= 1'],
    [{ responses: { ttlSeconds: 400 * 86_400 } }, 'responses.ttlSeconds must be <= 31536000'],
    [{ responses: { ttlSeconds: '30 days' } }, 'responses.ttlSeconds must be integer'],
    [{ responses: { maxStoredBytesPerAccount: 0.5 } }, 'responses.maxStoredBytesPerAccount must be integer'],
    [{ responses: { maxStoredBytesPerAccount: 2 ** 41 } }, 'responses.maxStoredBytesPerAccount must be <= 1099511627776'],
    [{ responses: { ttl_seconds: 60 } }, 'responses has an unknown setting "ttl_seconds"; did you mean "ttlSeconds"?'],
    [{ responses: { maxBytes: 60 } }, 'responses has an unknown setting "maxBytes"'],
  ])('refuses %j in the file, naming the setting', (file, message) => {
    expect(() => validateConfigFile(file, 'MUNJA_CONFIG')).toThrow(`MUNJA_CONFIG: ${message}`);
  });
});
