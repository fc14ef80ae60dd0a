// Issue 20, finding 2: sign-up allowed 30 accounts per address per 15 minutes with no email check,
// so a suspended user signed up again at once. Now sign-ups are counted per address (IPv6 by /64),
// and the operator can ask for a confirmed email address (mail through a real SMTP server here)
// or an admin's invite.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from '../helpers/gateway.ts';
import { freePort } from '../helpers/redis-server.ts';

const PASSWORD = 'correct horse battery';
const CHOSEN = 'chosen on the confirmation page';

describe('open sign-up (the default)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway();
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('allows 5 sign-ups an hour from one address, then 429; other addresses are not affected', async () => {
    const one = new DashboardClient(gateway.origin, '127.0.0.30');
    for (let i = 0; i < 5; i++) expect((await one.signUp(`open${i}@example.com`, PASSWORD)).status).toBe(200);
    const refused = await one.signUp('open5@example.com', PASSWORD);
    expect(refused).toMatchObject({ status: 429, body: { error: { code: 'sign_in_throttled' } } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3_000);
    const other = new DashboardClient(gateway.origin, '127.0.0.31');
    expect((await other.signUp('open6@example.com', PASSWORD)).status).toBe(200);
    await Promise.all([one.close(), other.close()]);
  });
});

describe('one account per mailbox (issue 33)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway();
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('refuses an address a mailer would read as several, or as a name and an address', async () => {
    const client = new DashboardClient(gateway.origin, '127.0.0.33');
    for (const email of ['one<me@example.com>', 'two <me@example.com>', 'x,me@example.com', '"me"@example.com', 'me(x)@example.com']) {
      expect(await client.signUp(email, PASSWORD), email).toMatchObject({ status: 400, body: { error: { code: 'invalid_value', param: 'email' } } });
    }
    expect(await gateway.app.store.countAccounts()).toBe(0);
    await client.close();
  });

  it('refuses a second account for one mailbox: a +tag or letter case does not make another', async () => {
    const client = new DashboardClient(gateway.origin, '127.0.0.34');
    expect((await client.signUp('me+first@example.com', PASSWORD)).status).toBe(200);
    for (const email of ['me@example.com', 'ME+second@Example.com']) {
      expect(await client.signUp(email, PASSWORD), email).toMatchObject({ status: 400, body: { error: { code: 'email_unavailable' } } });
    }
    expect((await new DashboardClient(gateway.origin).signIn('me+first@example.com', PASSWORD)).status).toBe(200);
    await client.close();
  });
});

describe('open sign-up on a dual-stack listener (HOST=::)', () => {
  it('still counts IPv4 clients one by one (uWS reports them as IPv4-mapped IPv6)', async () => {
    const gateway = await startGateway(FAST_TEST_CONFIG, { env: { HOST: '::' } });
    const clients = ['127.0.0.40', '127.0.0.41'].map((address) => new DashboardClient(gateway.origin, address));
    try {
      for (let i = 0; i < 5; i++) expect((await clients[0]!.signUp(`dual${i}@example.com`, PASSWORD)).status).toBe(200);
      expect((await clients[0]!.signUp('dual5@example.com', PASSWORD)).status).toBe(429);
      expect((await clients[1]!.signUp('dual6@example.com', PASSWORD)).status).toBe(200);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await gateway.close();
    }
  });
});

describe('sign-up behind a proxy, from IPv6 addresses', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { dashboard: { trustProxy: true } } });
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('counts a whole /64 as one address', async () => {
    const from = (address: string) => {
      const client = new DashboardClient(gateway.origin);
      client.extraHeaders['x-forwarded-for'] = address;
      return client;
    };
    for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:1:2::${i}`).signUp(`v6-${i}@example.com`, PASSWORD)).status).toBe(200);
    expect((await from('2001:db8:1:2:ffff:ffff:ffff:ffff').signUp('v6-6@example.com', PASSWORD)).status).toBe(429);
    expect((await from('2001:db8:1:3::1').signUp('v6-7@example.com', PASSWORD)).status).toBe(200);
  });
});

describe('email sign-up', () => {
  let gateway: TestGateway;
  let smtp: SMTPServer;
  const inbox: Array<{ to: string; text: string }> = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => { text += chunk; });
        stream.on('end', () => {
          inbox.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address).join(','), text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    gateway = await startGateway(
      { ...FAST_TEST_CONFIG, server: { dashboard: { signUp: 'email', publicUrl: 'https://munja.example' } } },
      { env: { MUNJA_SMTP_URL: `smtp://127.0.0.1:${port}`, MUNJA_MAIL_FROM: 'Munja <no-reply@munja.example>' } },
    );
  });

  afterAll(async () => {
    await gateway.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  /** The link in the last mail to `to`, with quoted-printable soft breaks undone. */
  function linkTo(to: string): URL {
    const mail = inbox.findLast((message) => message.to === to);
    const text = mail?.text.replace(/=\r?\n/g, '').replaceAll('=3D', '=') ?? '';
    const link = /https:\/\/munja\.example\/dashboard\/verify#token=[A-Za-z0-9_-]+/.exec(text)?.[0];
    if (link === undefined) throw new Error(`no link mailed to ${to}`);
    return new URL(link);
  }

  function tokenOf(link: URL): string {
    return new URLSearchParams(link.hash.slice(1)).get('token') ?? '';
  }

  it('makes the account only when the mailed link is followed, with the password chosen there; the link works once', async () => {
    const client = new DashboardClient(gateway.origin);
    // A password sent with the sign-up is not used: whoever started it does not set the account's.
    const answer = await client.signUp('mailed@example.com', PASSWORD);
    expect(answer).toMatchObject({ status: 200, body: { verificationSent: true } });
    expect(client.cookie).toBe('');
    expect((await client.signIn('mailed@example.com', PASSWORD)).status).toBe(401);

    const link = linkTo('mailed@example.com');
    const page = await fetch(`${gateway.origin}${link.pathname}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const token = tokenOf(link);
    expect(await client.call('POST', '/dashboard/api/verify/check', { token })).toMatchObject({ status: 200, body: { email: 'mailed@example.com' } });
    const weak = await client.call('POST', '/dashboard/api/verify', { token, password: 'short' });
    expect(weak).toMatchObject({ status: 400, body: { error: { code: 'invalid_value', param: 'password' } } });
    const verified = await client.call('POST', '/dashboard/api/verify', { token, password: CHOSEN });
    expect(verified.status).toBe(200);
    expect(verified.body.account.email).toBe('mailed@example.com');
    expect((await client.call('GET', '/dashboard/api/me')).status).toBe(200);
    expect((await new DashboardClient(gateway.origin).signIn('mailed@example.com', PASSWORD)).status).toBe(401);
    expect((await new DashboardClient(gateway.origin).signIn('mailed@example.com', CHOSEN)).status).toBe(200);

    const again = await new DashboardClient(gateway.origin).call('POST', '/dashboard/api/verify', { token, password: CHOSEN });
    expect(again).toMatchObject({ status: 400, body: { error: { code: 'invalid_link' } } });
    expect((await client.call('POST', '/dashboard/api/verify/check', { token })).status).toBe(400);
    expect((await client.call('POST', '/dashboard/api/verify', { token: 'A'.repeat(43), password: CHOSEN })).status).toBe(400);
  });

  it('a link someone else sent neither signs a signed-in person out nor into their account without a password chosen', async () => {
    const victim = new DashboardClient(gateway.origin);
    expect((await victim.signIn('mailed@example.com', CHOSEN)).status).toBe(200);
    expect((await new DashboardClient(gateway.origin).signUp('attacker@example.com')).status).toBe(200);
    const token = tokenOf(linkTo('attacker@example.com'));
    // What the page used to post on its own as soon as it opened.
    const posted = await victim.call('POST', '/dashboard/api/verify', { token });
    expect(posted).toMatchObject({ status: 400, body: { error: { code: 'missing_required_parameter', param: 'password' } } });
    expect((await victim.call('GET', '/dashboard/api/me')).body.account.email).toBe('mailed@example.com');
    expect(await gateway.app.store.findAccountByEmail('attacker@example.com')).toBeUndefined();
    expect((await victim.call('POST', '/dashboard/api/verify/check', { token })).body.email).toBe('attacker@example.com');
  });

  it('answers a sign-up for a taken address the same way, and its link says the address is taken', async () => {
    const taken = await new DashboardClient(gateway.origin).signUp('mailed@example.com');
    const fresh = await new DashboardClient(gateway.origin).signUp('fresh@example.com');
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual(fresh.body);
    const token = tokenOf(linkTo('mailed@example.com'));
    const verified = await new DashboardClient(gateway.origin).call('POST', '/dashboard/api/verify', { token, password: 'another long password' });
    expect(verified).toMatchObject({ status: 400, body: { error: { code: 'email_unavailable' } } });
    expect((await new DashboardClient(gateway.origin).signIn('mailed@example.com', CHOSEN)).status).toBe(200);
  });

  it('tells the page the mode, so it asks for no password at sign-up', async () => {
    expect(await new DashboardClient(gateway.origin).call('GET', '/dashboard/api/sign-up')).toMatchObject({ status: 200, body: { mode: 'email' } });
  });
});

describe('email sign-up while the mail server is down', () => {
  it('answers 503 with Retry-After, makes no account, and stays up', async () => {
    const port = await freePort(); // nothing listens there
    const gateway = await startGateway(
      { ...FAST_TEST_CONFIG, server: { dashboard: { signUp: 'email', publicUrl: 'https://munja.example' } } },
      { env: { MUNJA_SMTP_URL: `smtp://127.0.0.1:${port}`, MUNJA_MAIL_FROM: 'no-reply@munja.example' } },
    );
    try {
      const answer = await new DashboardClient(gateway.origin).signUp('unlucky@example.com', PASSWORD);
      expect(answer).toMatchObject({ status: 503, body: { error: { code: 'overloaded' } } });
      expect(answer.headers.get('retry-after')).toBe('60');
      expect(await gateway.app.store.findAccountByEmail('unlucky@example.com')).toBeUndefined();
      expect((await fetch(`${gateway.origin}/health`)).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});

describe('invite-only sign-up', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { dashboard: { signUp: 'invite' } } });
    const admin = await gateway.app.store.createAccount('boss@example.com', { isAdmin: true });
    await gateway.app.store.setPasswordHash(admin.id, await new PasswordHasher(1).hash(PASSWORD));
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('needs an admin’s invite, which works once', async () => {
    const stranger = new DashboardClient(gateway.origin);
    expect(await stranger.signUp('stranger@example.com', PASSWORD)).toMatchObject({ status: 403, body: { error: { code: 'invite_required' } } });

    const admin = new DashboardClient(gateway.origin);
    expect((await admin.signIn('boss@example.com', PASSWORD)).status).toBe(200);
    const { body } = await admin.call('POST', '/dashboard/api/admin/invites', {});
    expect(body.invite).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The store keeps only a digest of the invite.
    expect(await gateway.app.store.takeToken(body.invite, 'invite')).toBeUndefined();

    const guest = new DashboardClient(gateway.origin);
    const signedUp = await guest.call('POST', '/dashboard/api/sign-up', { email: 'guest@example.com', password: PASSWORD, invite: body.invite });
    expect(signedUp.status).toBe(200);
    const reused = await stranger.call('POST', '/dashboard/api/sign-up', { email: 'stranger@example.com', password: PASSWORD, invite: body.invite });
    expect(reused).toMatchObject({ status: 403, body: { error: { code: 'invite_required' } } });
    // A non-admin cannot make invites.
    expect((await guest.call('POST', '/dashboard/api/admin/invites', {})).status).toBe(403);
  });

  it('answers a made-up invite the same for a registered address as for an unknown one', async () => {
    const madeUp = 'B'.repeat(43);
    const client = new DashboardClient(gateway.origin, '127.0.0.50');
    const registered = await client.call('POST', '/dashboard/api/sign-up', { email: 'boss@example.com', password: PASSWORD, invite: madeUp });
    const unknown = await client.call('POST', '/dashboard/api/sign-up', { email: 'nobody@example.com', password: PASSWORD, invite: madeUp });
    expect(registered).toMatchObject({ status: 403, body: { error: { code: 'invite_required' } } });
    expect(unknown.status).toBe(registered.status);
    expect(unknown.body).toEqual(registered.body);
    await client.close();
  });

  it('keeps an invite usable when its account cannot be made', async () => {
    const admin = new DashboardClient(gateway.origin);
    expect((await admin.signIn('boss@example.com', PASSWORD)).status).toBe(200);
    const { body: { invite } } = await admin.call('POST', '/dashboard/api/admin/invites', {});
    const client = new DashboardClient(gateway.origin, '127.0.0.51');
    const taken = await client.call('POST', '/dashboard/api/sign-up', { email: 'Boss+again@example.com', password: PASSWORD, invite });
    expect(taken).toMatchObject({ status: 400, body: { error: { code: 'email_unavailable' } } });
    expect((await client.call('POST', '/dashboard/api/sign-up', { email: 'second@example.com', password: PASSWORD, invite })).status).toBe(200);
    await client.close();
  });
});
