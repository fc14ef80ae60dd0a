// The session cookie. With secureCookies (the default) it is `__Host-munja_session`: Secure,
// Path=/, no Domain, so only this exact origin over HTTPS ever receives it. For plain-HTTP
// development (MUNJA_INSECURE_COOKIES=1) it is `munja_session` without Secure: browsers refuse a
// `__Host-` cookie that is not Secure. Always HttpOnly and SameSite=Strict.

const SECURE_NAME = '__Host-munja_session';
const INSECURE_NAME = 'munja_session';

export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_NAME : INSECURE_NAME;
}

/** The value of cookie `name` in a Cookie header, or ''. */
export function readCookie(header: string, name: string): string {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return '';
}

function attributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** A Set-Cookie value that stores the session id. */
export function sessionCookie(secure: boolean, sessionId: string, maxAgeSeconds: number): string {
  return `${sessionCookieName(secure)}=${sessionId}; ${attributes(secure, maxAgeSeconds)}`;
}

/** A Set-Cookie value that makes the browser drop the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${sessionCookieName(secure)}=; ${attributes(secure, 0)}`;
}
