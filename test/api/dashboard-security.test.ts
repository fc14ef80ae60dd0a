// Dashboard sessions, CSRF defences, credential separation and throttling over real HTTP
// (reliability.md AK-16, AK-18…AK-23). The browser suite repeats the main ones in Chromium.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({
    ...FAST_TEST_CONFIG,
    // Behind a (pretend) proxy, so that each client below can have an address of its own.
    server: { dashboard: { trustProxy: true, signInThrottle: { accountFailures: 3, addressFailures: 6, windowMs: 60_000 } } },
  });
});

afterAll(async () => {
  await gateway.close();
});

let lastAddress = 0;

/** A client at an address of its own (X-Forwarded-For, trusted here). */
function newClient(): DashboardClient {
  const client = new DashboardClient(gateway.origin);
  lastAddress++;
  client.extraHeaders['x-forwarded-for'] = `198.51.100.7, 10.0.${lastAddress >> 8}.${lastAddress & 255}`;
  return client;
}

async function signedUp(email: string): Promise<DashboardClient> {
  const client = newClient();
  expect((await client.signUp(email)).status).toBe(200);
  return client;
}

describe('sessions', () => {
  it('sets a __Host- cookie: HttpOnly, Secure, SameSite=Strict, Path=/, no Domain', async () => {
    const client = newClient();
    const answer = await client.signUp('cookie@example.com');
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^__Host-munja_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=86400; HttpOnly; SameSite=Strict; Secure$/);
    expect(cookie).not.toMatch(/domain/i);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 401 not_signed_in without a session, with a made-up one, and after sign-out', async () => {
    const anonymous = newClient();
    expect((await anonymous.call('GET', '/dashboard/api/me')).body.error.code).toBe('not_signed_in');
    anonymous.cookie = `__Host-munja_session=${'A'.repeat(43)}`;
    expect((await anonymous.call('GET', '/dashboard/api/me')).status).toBe(401);

    const client = await signedUp('leaving@example.com');
    const cookie = client.cookie;
    const out = await client.call('POST', '/dashboard/api/sign-out');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-munja_session=; Path=\/; Max-Age=0;/);
    client.cookie = cookie; // replaying the old cookie
    expect((await client.call('GET', '/dashboard/api/me')).status).toBe(401);
  });

  it('issues a new session id at sign-in and ends the one the browser had', async () => {
    const client = await signedUp('fixation@example.com');
    const before = client.cookie;
    await client.signIn('fixation@example.com');
    expect(client.cookie).not.toBe(before);
    expect((await client.call('GET', '/dashboard/api/me')).status).toBe(200);
    const old = newClient();
    old.cookie = before;
    expect((await old.call('GET', '/dashboard/api/me')).status).toBe(401);
  });

  it('stores only a digest of the session id, and an expired session is refused', async () => {
    const client = await signedUp('expiry@example.com');
    const id = client.cookie.split('=')[1]!;
    const digest = createHash('sha256').update(id).digest('hex');
    expect(await gateway.app.store.findSession(id)).toBeUndefined();
    expect(await gateway.app.store.findSession(digest)).toBeDefined();
    await gateway.app.store.extendSession(digest, Date.now() - 1);
    expect((await client.call('GET', '/dashboard/api/me')).status).toBe(401);
  });
});

describe('ending sessions (issue 33)', () => {
  const NEW_PASSWORD = 'a brand new passphrase';

  it('a password change ends every other session of the account; the changer’s own stays', async () => {
    const changer = await signedUp('changer@example.com');
    const thief = newClient();
    expect((await thief.signIn('changer@example.com')).status).toBe(200);
    const bystander = await signedUp('bystander@example.com');

    const wrong = await changer.call('POST', '/dashboard/api/password', { currentPassword: 'not the password at all', newPassword: NEW_PASSWORD });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
    const weak = await changer.call('POST', '/dashboard/api/password', { currentPassword: 'correct horse battery', newPassword: 'short' });
    expect(weak).toMatchObject({ status: 400, body: { error: { code: 'invalid_value', param: 'newPassword' } } });
    expect((await thief.call('GET', '/dashboard/api/me')).status).toBe(200);

    const changed = await changer.call('POST', '/dashboard/api/password', { currentPassword: 'correct horse battery', newPassword: NEW_PASSWORD });
    expect(changed).toMatchObject({ status: 200, body: { ended: 1 } });
    expect((await thief.call('GET', '/dashboard/api/me')).status).toBe(401);
    expect((await changer.call('GET', '/dashboard/api/me')).status).toBe(200);
    expect((await bystander.call('GET', '/dashboard/api/me')).status).toBe(200);
    expect((await newClient().signIn('changer@example.com')).status).toBe(401);
    expect((await newClient().signIn('changer@example.com', NEW_PASSWORD)).status).toBe(200);
  });

  it('a password change needs the CSRF token', async () => {
    const client = await signedUp('csrf-change@example.com');
    client.csrfToken = '';
    const answer = await client.call('POST', '/dashboard/api/password', { currentPassword: 'correct horse battery', newPassword: NEW_PASSWORD });
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'csrf_failed' } } });
    expect((await newClient().signIn('csrf-change@example.com')).status).toBe(200);
  });

  it('“sign out everywhere else” ends every other session and keeps this one', async () => {
    const here = await signedUp('everywhere@example.com');
    const elsewhere = [newClient(), newClient()];
    for (const client of elsewhere) expect((await client.signIn('everywhere@example.com')).status).toBe(200);
    const ended = await here.call('POST', '/dashboard/api/sessions/end-others');
    expect(ended).toMatchObject({ status: 200, body: { ended: 2 } });
    for (const client of elsewhere) expect((await client.call('GET', '/dashboard/api/me')).status).toBe(401);
    expect((await here.call('GET', '/dashboard/api/me')).status).toBe(200);
  });
});

describe('CSRF', () => {
  it('refuses a cross-site POST with 403, and nothing changes', async () => {
    const client = await signedUp('csrf@example.com');
    const attempts: Array<Record<string, string>> = [
      { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'https://sub.127.0.0.1.nip.io' },
      { 'sec-fetch-site': '', origin: 'https://evil.example' },
      { 'sec-fetch-site': '', origin: 'null' },
    ];
    for (const headers of attempts) {
      const answer = await client.call('POST', '/dashboard/api/keys', { name: 'evil' }, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body.error.code).toBe('csrf_failed');
      expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
    // A "simple request" (text/plain, no custom header) cannot carry the token.
    const simple = await client.call('POST', '/dashboard/api/keys', JSON.stringify({ name: 'evil' }), {
      'content-type': 'text/plain', 'x-csrf-token': '', 'sec-fetch-site': '', origin: '',
    });
    expect(simple.body.error.code).toBe('csrf_failed');
    expect((await client.call('GET', '/dashboard/api/keys')).body.keys).toEqual([]);
    expect((await client.call('POST', '/dashboard/api/keys', { name: 'mine' })).status).toBe(200);
  });

  it('refuses a same-origin change without the session’s token', async () => {
    const client = await signedUp('token@example.com');
    const wrong = await client.call('POST', '/dashboard/api/keys', { name: 'x' }, { 'x-csrf-token': 'A'.repeat(43) });
    expect(wrong.body.error.code).toBe('csrf_failed');
    const other = await signedUp('token2@example.com');
    const borrowed = await client.call('POST', '/dashboard/api/keys', { name: 'x' }, { 'x-csrf-token': other.csrfToken });
    expect(borrowed.status).toBe(403);
  });

  it('refuses a cross-site sign-in (login CSRF)', async () => {
    await signedUp('victim@example.com');
    const attacker = newClient();
    const answer = await attacker.signIn('victim@example.com', 'correct horse battery');
    expect(answer.status).toBe(200);
    const crossSite = await newClient().call(
      'POST', '/dashboard/api/sign-in', { email: 'victim@example.com', password: 'correct horse battery' }, { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
  });
});

describe('credentials stay apart', () => {
  it('never signs in with an API key, and never accepts the session cookie on /v1 or /mcp', async () => {
    const { key } = await gateway.createKey();
    const withKey = await fetch(`${gateway.origin}/dashboard/api/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).toBe(401);
    expect((await withKey.json()).error.code).toBe('not_signed_in');

    const client = await signedUp('separate@example.com');
    const models = await fetch(`${gateway.baseURL}/models`, { headers: { cookie: client.cookie } });
    expect(models.status).toBe(401);
    expect((await models.json()).error.code).toBe('invalid_api_key');
    const mcp = await fetch(`${gateway.origin}/mcp`, {
      method: 'POST',
      headers: { cookie: client.cookie, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
  });
});

describe('sign-in', () => {
  it('answers a wrong password and an unknown email alike', async () => {
    await signedUp('known@example.com');
    const wrong = await newClient().signIn('known@example.com', 'not the password');
    const unknown = await newClient().signIn('nobody@example.com', 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('invalid_credentials');
  });

  it('throttles an account at one address after 3 attempts, even with the right password; elsewhere it only slows down', async () => {
    await signedUp('target@example.com');
    const attacker = newClient();
    for (let i = 0; i < 3; i++) {
      const answer = await attacker.signIn('target@example.com', `guess number ${i}`);
      expect(answer.status).toBe(401);
    }
    const blocked = await attacker.signIn('target@example.com');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('sign_in_throttled');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(50);
    // The failures slow the account's sign-ins down but do not lock its owner out.
    expect((await newClient().signIn('target@example.com')).status).toBe(200);
    // An unregistered email is throttled the same way: the answer says nothing about registration.
    const ghostHunter = newClient();
    for (let i = 0; i < 3; i++) await ghostHunter.signIn('ghost@example.com', 'guess guess guess');
    expect((await ghostHunter.signIn('ghost@example.com')).status).toBe(429);
  });

  it('throttles an address after 6 failures, whichever accounts it tries', async () => {
    const client = newClient();
    for (let i = 0; i < 6; i++) expect((await client.signIn(`spray${i}@example.com`, 'guess guess guess')).status).toBe(401);
    const blocked = await client.signIn('spray-next@example.com', 'guess guess guess');
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('sign_in_throttled');
    expect((await newClient().signIn('spray-next@example.com', 'guess guess guess')).status).toBe(401);
  });

  it('refuses sign-up for a taken email, and short passwords', async () => {
    await signedUp('taken@example.com');
    const again = await newClient().signUp('TAKEN@example.com', 'another password');
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('email_unavailable');
    const short = await newClient().signUp('short@example.com', 'short');
    expect(short.body.error).toMatchObject({ code: 'invalid_value', param: 'password' });
    const bad = await newClient().signUp('not an email', 'long enough password');
    expect(bad.body.error).toMatchObject({ code: 'invalid_value', param: 'email' });
  });
});

describe('pages', () => {
  it('serves the shell with security headers and an ETag, and hashed assets for a year', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/keys', '/dashboard/sign-in']) {
      const page = await fetch(gateway.origin + path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
      const html = await page.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline scripts
      expect(html).not.toMatch(/\sstyle=|<style/); // no inline styles
    }
    const shell = await fetch(`${gateway.origin}/dashboard`);
    const html = await shell.text();
    const cached = await fetch(`${gateway.origin}/dashboard`, { headers: { 'if-none-match': shell.headers.get('etag')! } });
    expect(cached.status).toBe(304);

    const assets = [...html.matchAll(/\/dashboard\/([\w-]+\.[0-9A-Za-z_-]{12}\.(?:js|css|svg))/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${gateway.origin}/dashboard/${asset}`);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    const missing = await fetch(`${gateway.origin}/dashboard/nope.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-security-policy')).not.toBeNull();
  });
});
