// Why a key was refused, in words that let its owner fix it. Every refusal is 401 `invalid_api_key`
// (SPEC §5); the message says only what the request itself shows: whether a header came, its
// scheme, and the key's public format (prefix, length, alphabet, a CRC32 anyone can compute). An
// unknown key, a revoked one and an expired one get the same words: telling them apart would
// confirm to whoever holds a leaked key that it was real, while its owner sees why in the dashboard.
import { ApiError } from '../errors/api-error.ts';
import { API_KEY_LENGTH, API_KEY_PREFIX } from './api-key.ts';

const WHERE_KEYS_COME_FROM = 'Keys come from the dashboard (/dashboard) or `munja keys create`.';
const KEY_ALPHABET = /^[0-9A-Za-z]*$/;

/** `anthropic`: the request came to the Messages API, whose clients send the key as `x-api-key`. */
export function missingKey(anthropic = false): ApiError {
  const header = anthropic ? '"x-api-key: sk_munja_…" (or "Authorization: Bearer sk_munja_…")' : '"Authorization: Bearer sk_munja_…"';
  return new ApiError('invalid_api_key', { message: `No API key: send the header ${header}. ${WHERE_KEYS_COME_FROM}` });
}

export function notBearer(anthropic = false): ApiError {
  const instead = anthropic ? ', or send the key alone as "x-api-key: sk_munja_…"' : '';
  return new ApiError('invalid_api_key', {
    message: `The Authorization header must be the word Bearer, a space, then the key: "Authorization: Bearer sk_munja_…"${instead}.`,
  });
}

/** For a key that failed `hasValidFormat`: which of its public rules it breaks. */
export function notAMunjaKey(key: string): ApiError {
  return new ApiError('invalid_api_key', {
    message: `This is not a Munja API key: ${formatFault(key)}. Check that it was copied whole. ${WHERE_KEYS_COME_FROM}`,
  });
}

export function unknownOrRevoked(): ApiError {
  return new ApiError('invalid_api_key', { message: `This API key is unknown, has been revoked or has expired. ${WHERE_KEYS_COME_FROM}` });
}

function formatFault(key: string): string {
  if (!key.startsWith(API_KEY_PREFIX)) return `it does not start with ${API_KEY_PREFIX}`;
  if (key.length !== API_KEY_LENGTH) return `it has ${key.length} characters where a key has ${API_KEY_LENGTH}`;
  if (!KEY_ALPHABET.test(key.slice(API_KEY_PREFIX.length))) return `after ${API_KEY_PREFIX} it has characters other than letters and digits`;
  return 'its checksum (the last 6 characters) does not match, so a character was changed';
}
