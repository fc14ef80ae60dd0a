// The dashboard opened over plain HTTP at a non-loopback address of this machine, in Chromium: the
// browser drops the Secure session cookie there, and the page says so, on the sign-in page and in
// the app; at 127.0.0.1, and with MUNJA_INSECURE_COOKIES=1, it says nothing.
import { networkInterfaces } from 'node:os';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, launchBrowser, processesUsing } from '../helpers/browser.ts';
import { PASSWORD } from '../helpers/dashboard-pages.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

/** An IPv4 address of this machine other than loopback (the address a LAN neighbour would use). */
const lanAddress = Object.values(networkInterfaces()).flat().find((address) => address?.family === 'IPv4' && !address.internal)?.address;

let browser: TestBrowser;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (browser) expect(processesUsing(browser.profile)).toEqual([]);
  for (const gateway of gateways) await gateway.close();
});

async function gatewayOn(host: string, env: Record<string, string> = {}): Promise<string> {
  const gateway = await startGateway(undefined, { env: { HOST: host, ...env } });
  gateways.push(gateway);
  return `http://${host}:${gateway.port}`;
}

async function signInPage(origin: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${origin}/dashboard/sign-in`);
  await page.getByRole('heading', { name: 'Sign in to Munja' }).waitFor();
  return page;
}

const notice = (page: Page) => page.locator('#plain-http-notice');

describe.skipIf(lanAddress === undefined)(`the dashboard over plain HTTP at ${lanAddress}`, { timeout: 60_000 }, () => {
  it('says that signing in will not last and names the fixes, on the sign-in page and in the app', async () => {
    const origin = await gatewayOn(lanAddress!);
    const page = await signInPage(origin);
    await expect.poll(() => notice(page).isVisible()).toBe(true);
    const text = await notice(page).textContent();
    expect(text).toContain('Signing in will not last at this address');
    expect(text).toContain(`from ${lanAddress}`);
    expect(text).toContain('MUNJA_TLS_CERT');
    expect(text).toContain('MUNJA_INSECURE_COOKIES=1');
    expect(text).toContain(`http://127.0.0.1:${new URL(origin).port}/dashboard`);

    // What the notice warns of: the account is made, the cookie is dropped, the app has no session.
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Email').fill('lan@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByText('the session is missing').first().waitFor();
    expect(await notice(page).isVisible()).toBe(true);
    await page.close();
  });

  it('says nothing when MUNJA_INSECURE_COOKIES=1 makes the cookie work there', async () => {
    const page = await signInPage(await gatewayOn(lanAddress!, { MUNJA_INSECURE_COOKIES: '1' }));
    expect(await notice(page).count()).toBe(0);
    await page.close();
  });
});

describe('the dashboard at 127.0.0.1', { timeout: 60_000 }, () => {
  it('shows no plain-HTTP notice', async () => {
    const page = await signInPage(await gatewayOn('127.0.0.1'));
    expect(await notice(page).count()).toBe(0);
    await page.close();
  });
});
