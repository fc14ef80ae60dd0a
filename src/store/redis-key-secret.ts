// The secret key digests are made with, kept in the store's meta hash. It is created only with
// HSETNX and read back afterwards, so processes racing to create it (instances starting together,
// the CLI on a Redis that lost its data) all end up with the one that landed first.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-connection.ts';
import { storeKeys } from './redis-keys.ts';

const FIELD = 'keySecret';
const HEX_SECRET = /^[0-9a-f]{64}$/;

/** The secret in the store; null when it is not there (a new or emptied Redis). */
export async function readKeySecret(client: RedisClient): Promise<Buffer | null> {
  const hex = await client.hget(storeKeys.meta, FIELD);
  if (hex === null) return null;
  if (!HEX_SECRET.test(hex)) throw new Error('the key secret in the store is malformed');
  return Buffer.from(hex, 'hex');
}

/** The secret in the store; when there is none, `candidate` (default: a new random one) is written first. */
export async function ensureKeySecret(client: RedisClient, candidate: Buffer = randomBytes(32)): Promise<Buffer> {
  const present = await readKeySecret(client);
  if (present !== null) return present;
  await client.hsetnx(storeKeys.meta, FIELD, candidate.toString('hex'));
  const secret = await readKeySecret(client);
  if (secret === null) throw new Error('the key secret is missing from the store');
  return secret;
}
