import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, readCookie, sessionCookie, sessionCookieName } from '../../../src/dashboard/session-cookie.ts';

describe('session cookie', () => {
  it('is __Host- and Secure by default, plain and not Secure for plain-HTTP development', () => {
    expect(sessionCookie(true, 'abc', 60)).toBe('__Host-munja_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookie(false, 'abc', 60)).toBe('munja_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict');
    expect(clearedSessionCookie(true)).toBe('__Host-munja_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookieName(false)).toBe('munja_session');
  });

  it('reads one cookie out of a Cookie header', () => {
    const header = 'theme=dark; __Host-munja_session=s3cr3t ;munja_session=plain; x=a=b';
    expect(readCookie(header, '__Host-munja_session')).toBe('s3cr3t');
    expect(readCookie(header, 'munja_session')).toBe('plain');
    expect(readCookie(header, 'x')).toBe('a=b');
    expect(readCookie(header, 'missing')).toBe('');
    expect(readCookie('', 'munja_session')).toBe('');
  });
});
