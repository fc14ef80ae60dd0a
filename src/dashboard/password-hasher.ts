// Dashboard passwords: scrypt at OWASP's recommended cost (N=2^17, r=8, p=1), stored as
// `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (base64) so a later cost change can be recognised and the
// hash upgraded at the next sign-in. Each hash takes ~128 MiB and one libuv thread — the pool DNS
// lookups share — for about half a second, so a semaphore bounds how many run at once.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { Semaphore } from './semaphore.ts';

const COST = { ln: 17, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const FORMAT = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
// Waiters allowed beyond the running hashes before sign-ins are refused with 503.
const MAX_WAITING = 64;
// Running and waiting hashes one client address may hold: flooding from a few addresses then holds
// a few places, and a sign-in from anywhere else still finds the queue open.
const MAX_PER_ADDRESS = 2;

interface Cost { readonly ln: number; readonly r: number; readonly p: number }

export interface Verdict {
  readonly ok: boolean;
  /** The hash uses an older cost: store a fresh one now that the password is known. */
  readonly needsRehash: boolean;
}

function derive(password: string, salt: Buffer, cost: Cost, length: number): Promise<Buffer> {
  const N = 2 ** cost.ln;
  return new Promise((resolve, reject) => {
    // maxmem: scrypt needs 128·N·r bytes; Node's 32 MiB default refuses N=2^17.
    scrypt(password.normalize('NFC'), salt, length, { N, r: cost.r, p: cost.p, maxmem: 2 * 128 * N * cost.r }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

export class PasswordHasher {
  readonly #slots: Semaphore;
  // Verified against when the account is unknown or has no password, so that case costs the same time.
  readonly #dummy = `$scrypt$ln=${COST.ln},r=${COST.r},p=${COST.p}$${randomBytes(SALT_BYTES).toString('base64')}$${randomBytes(HASH_BYTES).toString('base64')}`;

  constructor(concurrency: number) {
    this.#slots = new Semaphore(concurrency, MAX_WAITING, MAX_PER_ADDRESS);
  }

  /** `address`: the client asking, whose share of the queue this takes ('' for the operator). */
  async hash(password: string, address = ''): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.#slots.run(() => derive(password, salt, COST, HASH_BYTES), address);
    return `$scrypt$ln=${COST.ln},r=${COST.r},p=${COST.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /** `encoded` undefined (no such account, or no password) or unreadable still costs one hash, and fails. */
  async verify(password: string, encoded: string | undefined, address = ''): Promise<Verdict> {
    const stored = encoded === undefined ? null : FORMAT.exec(encoded);
    const match = stored ?? FORMAT.exec(this.#dummy)!;
    const cost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
    const salt = Buffer.from(match[4]!, 'base64');
    const expected = Buffer.from(match[5]!, 'base64');
    const actual = await this.#slots.run(() => derive(password, salt, cost, expected.length), address);
    const ok = stored !== null && timingSafeEqual(actual, expected);
    return { ok, needsRehash: ok && (cost.ln !== COST.ln || cost.r !== COST.r || cost.p !== COST.p) };
  }
}
