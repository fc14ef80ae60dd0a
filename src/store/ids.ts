import { randomBytes } from 'node:crypto';

/** `prefix` + 24 hex characters (96 random bits): `acct_…`, `key_…`. */
export function newId(prefix: 'acct_' | 'key_'): string {
  return prefix + randomBytes(12).toString('hex');
}
