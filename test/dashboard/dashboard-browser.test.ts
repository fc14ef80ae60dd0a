// The dashboard in a real browser (Debian's Chromium, driven by playwright-core): sign up, create a
// key and read it once, use it on /v1, see the request in usage, revoke it and see 401; the
// session cookie's flags; a key name that looks like HTML stays text; a page on another site
// cannot make changes; wrong passwords hit the throttle; admins suspend accounts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, launchBrowser, processesUsing } from '../helpers/browser.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from '../helpers/gateway.ts';
import { PASSWORD, createKeyOnPage, signUp as signUpOnPage } from '../helpers/dashboard-pages.ts';
import { chatBody } from '../helpers/http.ts';

let gateway: TestGateway;
let browser: TestBrowser;

beforeAll(async () => {
  gateway = await startGateway({ ...FAST_TEST_CONFIG, server: { dashboard: { signInThrottle: { accountFailures: 3, addressFailures: 50, windowMs: 60_000 } } } });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (browser) expect(processesUsing(browser.profile)).toEqual([]);
  await gateway?.close();
});

function chat(key: string): Promise<Response> {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody({ max_tokens: 5 }),
  });
}

async function signUp(page: Page, email: string): Promise<void> {
  await signUpOnPage(page, gateway.origin, email);
}

async function createKey(page: Page, name: string, models: string[] = []): Promise<string> {
  const key = await createKeyOnPage(page, name, models);
  expect(key).toMatch(/^sk_munja_[0-9A-Za-z]{28}$/);
  return key;
}

describe('dashboard in Chromium', { timeout: 60_000 }, () => {
  it('sign up, create a key, read it once, use it, see it in usage, revoke it, see 401', async () => {
    const page = await browser.context.newPage();
    const alerts: string[] = [];
    page.on('dialog', (dialog) => { alerts.push(dialog.message()); void dialog.dismiss(); });
    await page.goto(`${gateway.origin}/dashboard`);
    await page.waitForURL('**/dashboard/sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await signUp(page, 'ana@example.com');

    const [cookie] = await browser.context.cookies(gateway.origin);
    expect(cookie).toMatchObject({ name: '__Host-munja_session', httpOnly: true, secure: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate(() => document.cookie)).toBe('');

    const key = await createKey(page, 'backend', ['fast']);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const row = page.locator('tr', { hasText: 'backend' });
    await expect.poll(() => row.textContent()).toContain(`${key.slice(0, 13)}…${key.slice(-4)}`);
    await page.reload();
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();
    await page.locator('tr', { hasText: 'backend' }).waitFor();
    expect(await page.content()).not.toContain(key);

    expect((await chat(key)).status).toBe(200);
    await page.getByRole('link', { name: 'Usage' }).click();
    await expect.poll(async () => {
      await page.reload();
      await page.getByRole('heading', { name: 'Details' }).waitFor();
      return page.locator('table.usage tbody tr').count();
    }, { timeout: 10_000 }).toBe(1);
    expect(await page.locator('table.usage tbody tr').textContent()).toContain('backend');
    expect(await page.locator('svg.chart rect.bar[data-value="1"]').count()).toBe(1);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke backend' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.locator('tr', { hasText: 'backend' }).getByText('Revoked').waitFor();
    expect((await chat(key)).status).toBe(401); // at once: this instance drops the key from its cache
    expect(alerts).toEqual([]);
    await page.close();
  });

  it('shows a key name that looks like HTML as text', async () => {
    const page = await browser.context.newPage();
    let alerted = false;
    page.on('dialog', (dialog) => { alerted = true; void dialog.dismiss(); });
    await page.goto(`${gateway.origin}/dashboard/keys`);
    await createKey(page, '<img src=x onerror=alert(1)>');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('rowheader', { name: '<img src=x onerror=alert(1)>' }).waitFor();
    expect(await page.locator('table.keys img').count()).toBe(0);
    expect(alerted).toBe(false);
    await page.close();
  });

  it('refuses changes sent by a page on another site (403) and changes nothing', async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await signUp(page, 'victim@example.com'); // signed in, in this browser
    const keysBefore = (await gateway.app.store.listKeys()).length;
    const attacker = await attackerSite(`${gateway.origin}/dashboard/api/keys`);
    try {
      const refused: number[] = [];
      page.on('response', (response) => { if (response.url().endsWith('/dashboard/api/keys')) refused.push(response.status()); });
      await page.goto(attacker.url);
      await expect.poll(() => refused.length, { timeout: 10_000 }).toBe(2); // the fetch and the form
      expect(refused).toEqual([403, 403]);
      expect((await gateway.app.store.listKeys()).length).toBe(keysBefore);
      await page.close();
    } finally {
      attacker.server.closeAllConnections();
      await new Promise((resolve) => attacker.server.close(resolve));
    }
  });

  it('throttles wrong passwords, using the keyboard only', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${gateway.origin}/dashboard/keys`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Munja' }).waitFor();
    const tryPassword = async (password: string) => {
      await page.getByLabel('Email').focus();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('ana@example.com');
      await page.keyboard.press('Tab');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type(password);
      await page.keyboard.press('Enter');
      return (await page.getByRole('alert').textContent()) ?? '';
    };
    for (let i = 0; i < 3; i++) {
      expect(await tryPassword(`wrong password ${i}`)).toBe('The email address or password is not right.');
      await page.getByRole('alert').evaluate((alert) => alert.remove());
    }
    expect(await tryPassword(PASSWORD)).toMatch(/^Too many sign-ins\. Try again in \d+ seconds\.$/);
    await page.close();
  });

  it('lets an admin suspend an account; the owner still signs in and sees why', async () => {
    const admin = await launchBrowser(); // a second, separate browser profile
    try {
      const page = await admin.context.newPage();
      await signUp(page, 'root@example.com');
      expect(await page.getByRole('link', { name: 'Accounts' }).count()).toBe(0);
      await gateway.app.store.setAccountAdmin('root@example.com', true); // `munja accounts admin`
      await page.reload();
      await page.getByRole('link', { name: 'Accounts' }).click();
      await page.getByRole('button', { name: 'Suspend ana@example.com' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Suspend account' }).click();
      await page.getByRole('button', { name: 'Resume ana@example.com' }).waitFor();
      expect((await gateway.app.store.findAccountByEmail('ana@example.com'))?.status).toBe('suspended');
    } finally {
      await admin.close();
      expect(processesUsing(admin.profile)).toEqual([]);
    }
    await gateway.app.store.clearAttempts('sign-in:pair:127.0.0.1:ana@example.com'); // the throttle test's window
    const page = await browser.context.newPage();
    await page.goto(`${gateway.origin}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('ana@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Your account is suspended.').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true);
    await page.close();
  });
});

/** A page on another site (localhost vs 127.0.0.1) that posts to the dashboard as soon as it loads. */
async function attackerSite(target: string): Promise<{ server: Server; url: string }> {
  const html = `<!doctype html><form id="f" method="POST" action="${target}" enctype="text/plain" target="sink">
<input name='{"name":"evil","x":"' value='"}'></form><iframe name="sink"></iframe>
<script>
fetch(${JSON.stringify(target)}, { method: 'POST', credentials: 'include', mode: 'no-cors',
  headers: { 'content-type': 'text/plain' }, body: '{"name":"evil"}' }).catch(() => {});
document.getElementById('f').submit();
</script>`;
  const server = createServer((_, res) => { res.setHeader('content-type', 'text/html'); res.end(html); });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}/` };
}
