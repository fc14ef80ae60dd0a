import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../../src/dashboard/password-hasher.ts';

const hasher = new PasswordHasher(2);

describe('PasswordHasher', () => {
  it('stores scrypt at OWASP cost (N=2^17, r=8, p=1) with a random salt', async () => {
    const one = await hasher.hash('correct horse battery');
    const two = await hasher.hash('correct horse battery');
    expect(one).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(one).not.toBe(two);
  });

  it('verifies the right password only, including 128-character and differently composed Unicode ones', async () => {
    const long = 'ž'.repeat(64) + 'x'.repeat(64);
    const hash = await hasher.hash(long);
    expect(await hasher.verify(long, hash)).toEqual({ ok: true, needsRehash: false });
    expect(await hasher.verify(long.slice(0, 127), hash)).toEqual({ ok: false, needsRehash: false });
    const composed = await hasher.hash('café au lait');
    expect((await hasher.verify('cafe\u0301 au lait', composed)).ok).toBe(true);
  });

  it('fails, after the same work, for no hash or an unreadable one', async () => {
    expect(await hasher.verify('anything at all', undefined)).toEqual({ ok: false, needsRehash: false });
    expect(await hasher.verify('anything at all', 'bcrypt$whatever')).toEqual({ ok: false, needsRehash: false });
  });

  it('asks for a rehash of a correct password stored at an older cost', async () => {
    const salt = Buffer.alloc(16, 7);
    const key = scryptSync('old password!', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const old = `$scrypt$ln=14,r=8,p=1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(await hasher.verify('old password!', old)).toEqual({ ok: true, needsRehash: true });
    expect(await hasher.verify('wrong password', old)).toEqual({ ok: false, needsRehash: false });
  });
});
