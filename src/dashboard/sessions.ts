// Dashboard sessions. The id is 256 random bits, sent only in the HttpOnly cookie; the store keeps
// its SHA-256 digest, so a leaked store holds no usable session. A session ends at the absolute
// lifetime, after the idle time without use, or at sign-out. The CSRF token is an HMAC of the id
// under the server secret: the page reads it from /dashboard/api/me and sends it back in a header,
// which another site can neither read nor forge.
import { type KeyObject, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DashboardConfig } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import type { DashboardHeaders } from '../http/request-context.ts';
import type { Account, Session, Store } from '../store/store.ts';
import { clearedSessionCookie, readCookie, sessionCookie, sessionCookieName } from './session-cookie.ts';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
// The expiry moves forward at most once a minute, not on every request.
const EXTEND_STEP_MS = 60_000;

export interface SignedIn {
  readonly account: Account;
  readonly session: Session;
  readonly csrfToken: string;
}

export interface NewSession {
  /** The Set-Cookie header value. */
  readonly cookie: string;
  readonly csrfToken: string;
}

export class Sessions {
  readonly #store: Store;
  readonly #secret: KeyObject;
  readonly #config: DashboardConfig;
  readonly #cookieName: string;

  constructor(store: Store, secret: KeyObject, config: DashboardConfig) {
    this.#store = store;
    this.#secret = secret;
    this.#config = config;
    this.#cookieName = sessionCookieName(config.secureCookies);
  }

  /** Signs `accountId` in with a new session id, ending any session the request carried. */
  async start(headers: DashboardHeaders, accountId: string): Promise<NewSession> {
    await this.end(headers);
    const id = randomBytes(32).toString('base64url');
    const now = Date.now();
    await this.#store.createSession({ digest: digestOf(id), accountId, createdAt: now, expiresAt: now + this.#config.sessionIdleMs });
    const maxAgeSeconds = Math.floor(this.#config.sessionTtlMs / 1000);
    return { cookie: sessionCookie(this.#config.secureCookies, id, maxAgeSeconds), csrfToken: this.#csrfToken(id) };
  }

  /** The signed-in account, or not_signed_in. Only the cookie counts: an API key never signs in. */
  async require(headers: DashboardHeaders): Promise<SignedIn> {
    const id = this.#sessionId(headers);
    const session = id === '' ? undefined : await this.#store.findSession(digestOf(id));
    const account = session && await this.#store.findAccountById(session.accountId);
    if (session === undefined || account === undefined) throw new ApiError('not_signed_in');
    const now = Date.now();
    const expiresAt = Math.min(session.createdAt + this.#config.sessionTtlMs, now + this.#config.sessionIdleMs);
    if (expiresAt - session.expiresAt >= EXTEND_STEP_MS) await this.#store.extendSession(session.digest, expiresAt);
    return { account, session, csrfToken: this.#csrfToken(id) };
  }

  /** Throws csrf_failed unless the request carries the token of its session. */
  checkCsrfToken(headers: DashboardHeaders, signedIn: SignedIn): void {
    const sent = Buffer.from(headers.csrfToken);
    const expected = Buffer.from(signedIn.csrfToken);
    if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
      throw new ApiError('csrf_failed', { message: 'The request lacks the dashboard’s CSRF token. Reload the page and try again.' });
    }
  }

  /** Deletes the request's session, if any; returns the Set-Cookie value that clears the cookie. */
  async end(headers: DashboardHeaders): Promise<string> {
    const id = this.#sessionId(headers);
    if (id !== '') await this.#store.deleteSession(digestOf(id));
    return clearedSessionCookie(this.#config.secureCookies);
  }

  #sessionId(headers: DashboardHeaders): string {
    const id = readCookie(headers.cookie, this.#cookieName);
    return SESSION_ID.test(id) ? id : '';
  }

  #csrfToken(sessionId: string): string {
    return createHmac('sha256', this.#secret).update(`csrf:${sessionId}`).digest('base64url');
  }
}

function digestOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}
