// The dashboard pages in Chromium with the issue 20 changes: the key list comes a page at a time,
// email sign-up ends at the mailed link (from a real SMTP server), whose page asks for the password, and an admin's invite link signs
// a new account up where sign-up needs an invite.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { type TestBrowser, launchBrowser, processesUsing } from '../helpers/browser.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { PASSWORD, signUp } from '../helpers/dashboard-pages.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from '../helpers/gateway.ts';

let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (browser) expect(processesUsing(browser.profile)).toEqual([]);
});

describe('key pages in Chromium', { timeout: 60_000 }, () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startGateway();
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('shows 25 keys, newest first, and the older ones on the next page', async () => {
    const page = await browser.context.newPage();
    await signUp(page, gateway.origin, 'pages@example.com');
    const account = (await gateway.app.store.findAccountByEmail('pages@example.com'))!;
    for (let i = 0; i < 30; i++) {
      await gateway.app.store.createKey({
        accountId: account.id, digest: randomBytes(32).toString('hex'), name: `key ${i}`, prefix: 'sk_munja_abcd', lastFour: 'wxyz',
        models: null, limits: { rpm: null, tpm: null },
      });
    }
    await page.reload();
    await page.getByText('Keys 1–25 of 30').waitFor();
    expect(await page.locator('table.keys tbody tr').count()).toBe(25);
    expect(await page.locator('table.keys tbody tr th').first().textContent()).toBe('key 29');
    await page.getByRole('button', { name: 'Older' }).click();
    await page.getByText('Keys 26–30 of 30').waitFor();
    expect(await page.locator('table.keys tbody tr th').allTextContents()).toEqual(['key 4', 'key 3', 'key 2', 'key 1', 'key 0']);
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText('Keys 1–25 of 30').waitFor();
    await page.close();
  });
});

describe('email and invite sign-up in Chromium', { timeout: 60_000 }, () => {
  let gateway: TestGateway;
  let smtp: SMTPServer;
  const mails: string[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => { text += chunk; });
        stream.on('end', () => { mails.push(text.replace(/=\r?\n/g, '').replaceAll('=3D', '=')); callback(); });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    gateway = await startGateway(
      { ...FAST_TEST_CONFIG, server: { dashboard: { signUp: 'email', publicUrl: 'https://munja.example' } } },
      { env: { MUNJA_SMTP_URL: `smtp://127.0.0.1:${port}`, MUNJA_MAIL_FROM: 'no-reply@munja.example' } },
    );
  });

  afterAll(async () => {
    await gateway.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const lastLink = () => new URL(/https:\/\/munja\.example\/dashboard\/verify#token=[A-Za-z0-9_-]+/.exec(mails.at(-1) ?? '')![0]);

  async function signUpByMail(page: Page, email: string): Promise<URL> {
    await page.goto(`${gateway.origin}/dashboard/sign-up`);
    // In email mode the sign-up form asks for the address only.
    await page.getByText('you choose your password on the page it opens').waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Check your email.').waitFor();
    return lastLink();
  }

  it('says to check the mail, and the mailed link’s page asks for the password and finishes the sign-up', async () => {
    const page = await browser.context.newPage();
    const link = await signUpByMail(page, 'mailed@example.com');
    // The link's page and fragment, on this test's origin.
    await page.goto(`${gateway.origin}${link.pathname}${link.hash}`);
    await page.getByText('This link confirms mailed@example.com').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account and sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.goto(`${gateway.origin}${link.pathname}${link.hash}`); // a second time
    await page.getByText('This link is not valid').waitFor();
    expect(await page.evaluate(async () => (await (await fetch('/dashboard/api/me')).json()).account.email)).toBe('mailed@example.com');
    await page.close();
  });

  it('a link someone else sent leaves a signed-in person in their account until they choose to go on', async () => {
    const page = await browser.context.newPage();
    expect((await new DashboardClient(gateway.origin).signUp('stranger@example.com')).status).toBe(200);
    const link = lastLink();
    await page.goto(`${gateway.origin}${link.pathname}${link.hash}`);
    await page.getByText('You are signed in as mailed@example.com').waitFor();
    expect(await page.evaluate(async () => (await (await fetch('/dashboard/api/me')).json()).account.email)).toBe('mailed@example.com');
    expect(await gateway.app.store.findAccountByEmail('stranger@example.com')).toBeUndefined();
    await page.close();
  });

  it('lets an admin make an invite link that signs a new account up', async () => {
    const invited = await startGateway({ ...FAST_TEST_CONFIG, server: { dashboard: { signUp: 'invite' } } });
    try {
      const admin = await invited.app.store.createAccount('boss@example.com', { isAdmin: true });
      await invited.app.store.setPasswordHash(admin.id, await new PasswordHasher(1).hash(PASSWORD));
      const page = await browser.context.newPage();
      await page.goto(`${invited.origin}/dashboard/sign-in`);
      await page.getByLabel('Email').fill('boss@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Accounts' }).click();
      await page.getByRole('button', { name: 'Create an invite link' }).click();
      const link = (await page.locator('pre.code').textContent()) ?? '';
      expect(link).toMatch(/\/dashboard\/sign-up#invite=[A-Za-z0-9_-]{43}$/);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to Munja' }).waitFor();
      await page.goto(link);
      await page.getByText('You were invited').waitFor();
      await page.getByLabel('Email').fill('guest@example.com');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      await page.close();
    } finally {
      await invited.close();
    }
  });
});
