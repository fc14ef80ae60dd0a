import { describe, expect, it } from 'vitest';
import {
  API_KEY_LENGTH, API_KEY_PREFIX, digestApiKey, displayPrefix, generateApiKey, hasValidFormat, lastFour,
} from '../../../src/auth/api-key.ts';
import { BASE62_ALPHABET, encodeBase62 } from '../../../src/auth/base62.ts';

/** Replaces the character at `index` with a different base62 character. */
function mutate(key: string, index: number): string {
  const current = key[index]!;
  const replacement = BASE62_ALPHABET[(BASE62_ALPHABET.indexOf(current) + 1) % 62]!;
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('generateApiKey', () => {
  it('has the documented shape and passes its own checksum', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^sk_munja_[0-9A-Za-z]{28}$/);
    expect(key).toHaveLength(API_KEY_LENGTH);
    expect(hasValidFormat(key)).toBe(true);
  });

  it('is different every time', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
  });

  it('uses the whole base62 alphabet in the random part', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) for (const char of generateApiKey().slice(API_KEY_PREFIX.length, -6)) seen.add(char);
    expect(seen.size).toBe(62);
  });
});

describe('hasValidFormat', () => {
  const key = generateApiKey();

  it('rejects any one-character change, in the random part or the checksum', () => {
    for (let index = API_KEY_PREFIX.length; index < key.length; index++) {
      expect(hasValidFormat(mutate(key, index)), `change at ${index}`).toBe(false);
    }
  });

  it('rejects a wrong prefix even with a matching length', () => {
    expect(hasValidFormat(`sk_mUnja_${key.slice(API_KEY_PREFIX.length)}`)).toBe(false);
    expect(hasValidFormat(`sk-munja_${key.slice(API_KEY_PREFIX.length)}`)).toBe(false);
  });

  it('rejects wrong lengths', () => {
    expect(hasValidFormat(key.slice(0, -1))).toBe(false);
    expect(hasValidFormat(`${key}0`)).toBe(false);
    expect(hasValidFormat('')).toBe(false);
    expect(hasValidFormat(API_KEY_PREFIX)).toBe(false);
  });

  it('rejects characters outside base62', () => {
    for (const bad of ['_', '-', '+', '/', '=', ' ', 'é']) {
      expect(hasValidFormat(key.slice(0, 12) + bad + key.slice(13))).toBe(false);
    }
  });

  it('rejects other vendors’ keys', () => {
    expect(hasValidFormat('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789')).toBe(false);
  });
});

describe('digestApiKey', () => {
  const key = generateApiKey();
  const secret = Buffer.alloc(32, 1);

  it('is a stable hex HMAC-SHA-256 for one secret', () => {
    const digest = digestApiKey(key, secret);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestApiKey(key, Buffer.from(secret))).toBe(digest);
  });

  it('differs per secret and per key', () => {
    expect(digestApiKey(key, Buffer.alloc(32, 2))).not.toBe(digestApiKey(key, secret));
    expect(digestApiKey(generateApiKey(), secret)).not.toBe(digestApiKey(key, secret));
  });

  it('never contains the key', () => {
    expect(digestApiKey(key, secret)).not.toContain(key.slice(API_KEY_PREFIX.length, -6));
  });
});

describe('display helpers', () => {
  it('show the prefix with four random characters, and the last four', () => {
    const key = generateApiKey();
    expect(displayPrefix(key)).toBe(key.slice(0, 13));
    expect(displayPrefix(key)).toMatch(/^sk_munja_[0-9A-Za-z]{4}$/);
    expect(lastFour(key)).toBe(key.slice(-4));
  });
});

describe('encodeBase62', () => {
  it('is fixed-width and refuses overflow', () => {
    expect(encodeBase62(0, 6)).toBe('000000');
    expect(encodeBase62(61, 2)).toBe('0z');
    expect(encodeBase62(0xffffffff, 6)).toHaveLength(6);
    expect(() => encodeBase62(62 ** 2, 2)).toThrow(RangeError);
  });
});
