// API keys: `sk_munja_` + 22 random base62 characters (≈131 bits) + 6 base62 characters of
// CRC32 over everything before them. The checksum lets typos and garbage be rejected
// without touching the store; it adds no secrecy.
import { type KeyObject, createHmac } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from './base62.ts';

export const API_KEY_PREFIX = 'sk_munja_';
const RANDOM_LENGTH = 22;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32
const DISPLAY_RANDOM_CHARS = 4;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const KEY_SHAPE = /^sk_munja_[0-9A-Za-z]{28}$/;

function checksumOf(body: string): string {
  return encodeBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksumOf(body);
}

/** Prefix, length, alphabet and checksum: the cheap gate before any lookup. */
export function hasValidFormat(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !KEY_SHAPE.test(key)) return false;
  const split = API_KEY_LENGTH - CHECKSUM_LENGTH;
  return checksumOf(key.slice(0, split)) === key.slice(split);
}

/**
 * Hex HMAC-SHA-256 of the key under the server secret: the only form the store ever sees. Pass a
 * KeyObject made once (`createSecretKey`) on hot paths: from a raw Buffer Node builds one per call,
 * measured at 15–18 µs against 2–3 µs.
 */
export function digestApiKey(key: string, secret: Buffer | KeyObject): string {
  return createHmac('sha256', secret).update(key).digest('hex');
}

/** `sk_munja_` + the first random characters, safe to show in listings. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + DISPLAY_RANDOM_CHARS);
}

export function lastFour(key: string): string {
  return key.slice(-4);
}
