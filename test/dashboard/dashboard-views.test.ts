// The usage chart's axis and stacked tokens, the admin's service-wide usage, the quickstart's
// variable name, the admin's audit log and admin keys, GET / in a browser, and the keys table at phone width, in Chromium.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestBrowser, launchBrowser, processesUsing } from '../helpers/browser.ts';
import { PASSWORD, createKeyOnPage, signUp } from '../helpers/dashboard-pages.ts';
import { DashboardClient } from '../helpers/dashboard-client.ts';
import { PasswordHasher } from '../../src/dashboard/password-hasher.ts';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';

const PHONE = { width: 390, height: 844 };
let gateway: TestGateway;
let browser: TestBrowser;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  gateway = await startGateway();
  browser = await launchBrowser();
}, 60_000);

// One browser profile for the file: each test starts signed out.
beforeEach(async () => {
  await browser.context.clearCookies();
});

afterAll(async () => {
  await browser?.close();
  if (browser) expect(processesUsing(browser.profile)).toEqual([]);
  await gateway?.close();
});

async function usageOf(email: string, day: string, requests: number, promptTokens: number, completionTokens: number, costMicros: number): Promise<void> {
  const account = await gateway.app.store.findAccountByEmail(email);
  const [key] = await gateway.app.store.listKeys(account!.id);
  await gateway.app.store.addUsage([{ keyId: key!.id, day, model: 'model-a', requests, promptTokens, completionTokens, costMicros }]);
}

const axisLabels = (page: Page) => page.locator('svg.chart text.axis[text-anchor="end"]').allTextContents();

describe('dashboard views in Chromium', { timeout: 60_000 }, () => {
  it('the usage chart steps its axis in round numbers and stacks prompt and completion tokens; spend shows next to tokens', async () => {
    const page = await browser.context.newPage();
    await signUp(page, gateway.origin, 'chart@example.com');
    await createKeyOnPage(page, 'chart-key');
    await usageOf('chart@example.com', yesterday, 10, 300, 1200, 1_250_000);
    await usageOf('chart@example.com', today, 7, 100, 250, 30);
    await page.goto(`${gateway.origin}/dashboard/usage`);
    await page.locator('svg.chart').waitFor();
    expect(await axisLabels(page)).toEqual(['0', '2', '4', '6', '8', '10']);
    expect(await page.locator('.tile-value').allTextContents()).toEqual(['17', '400', '1,450', '$1.25003']);
    const details = await page.locator('table.usage tbody tr').allTextContents();
    expect(details).toEqual([expect.stringMatching(new RegExp(`^${today}chart-key.*model-a7100250\\$0\\.00003$`)), expect.stringMatching(/model-a103001,200\$1\.25$/)]);

    await page.getByText('Tokens', { exact: true }).click();
    await page.locator('figure.chart-figure').waitFor();
    expect(await axisLabels(page)).toEqual(['0', '500', '1,000', '1,500']);
    const day = page.locator(`svg.chart g[data-day="${yesterday}"]`);
    expect(await day.getAttribute('data-total')).toBe('1500');
    const parts = await day.locator('rect.bar').evaluateAll((rects) => rects.map((rect) => ({
      series: rect.getAttribute('data-series'), y: Number(rect.getAttribute('y')), height: Number(rect.getAttribute('height')),
    })));
    expect(parts.map((part) => part.series)).toEqual(['prompt tokens', 'completion tokens']);
    // Completion sits on top of prompt, four times as tall.
    expect(parts[1]!.y + parts[1]!.height).toBeCloseTo(parts[0]!.y, 5);
    expect(parts[1]!.height / parts[0]!.height).toBeCloseTo(4, 5);
    expect(await page.locator('.legend').textContent()).toBe('prompt tokenscompletion tokens');
    await page.close();
  });

  it('shows an admin the usage of every account, and only an admin', async () => {
    const page = await browser.context.newPage();
    await signUp(page, gateway.origin, 'other@example.com');
    await createKeyOnPage(page, 'other-key');
    await usageOf('other@example.com', today, 5, 50, 500, 500);
    expect(await page.getByRole('link', { name: 'Service usage' }).count()).toBe(0);
    const refused = await page.evaluate(async () => (await fetch('/dashboard/api/admin/usage')).status);
    expect(refused).toBe(403);

    await gateway.app.store.setAccountAdmin('other@example.com', true);
    await page.reload();
    await page.getByRole('link', { name: 'Service usage' }).click();
    await page.getByRole('heading', { name: 'Per account' }).waitFor();
    const rows = await page.locator('table.fleet tbody tr').allTextContents();
    expect(rows[0]).toMatch(/^chart@example\.com174001,450\$1\.25003$/);
    expect(rows[1]).toMatch(/^other@example\.com550500\$0\.0005$/);
    const tiles = await page.locator('.tile-value').allTextContents();
    expect(tiles).toEqual(['22', '450', '1,950', '$1.25053']);
    await page.locator('#fleet-account').selectOption({ label: 'other@example.com' });
    expect(await page.locator(`svg.chart g[data-day="${today}"]`).getAttribute('data-total')).toBe('5');
    await page.close();
  });

  it('shows an admin the audit log and makes an admin key shown once', async () => {
    const page = await browser.context.newPage();
    // Made by the store, not signed up: sign-ups from one address are limited, and the file has its share.
    const auditor = await gateway.app.store.createAccount('auditor@example.com', { isAdmin: true });
    await gateway.app.store.setPasswordHash(auditor.id, await new PasswordHasher(1).hash(PASSWORD));
    await page.goto(`${gateway.origin}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('auditor@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.goto(`${gateway.origin}/dashboard/admin`);
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByRole('button', { name: 'Create an admin key' }).click();
    const shown = await page.locator('pre, code').filter({ hasText: /^sk_munja_/ }).first().textContent();
    expect(shown).toMatch(/^sk_munja_/);
    const firstRow = page.locator('table caption:text("Audit log, newest first") >> xpath=.. >> tbody tr').first();
    await expect.poll(() => firstRow.textContent()).toMatch(/acct_\w+127\.0\.0\.1key\.createdkey_/);
    expect(await firstRow.textContent()).not.toContain(shown!.slice(9));
    await page.close();
  });

  it('the account page changes the password and signs out every other session, this one staying', async () => {
    const page = await browser.context.newPage();
    await signUp(page, gateway.origin, 'careful@example.com');
    const elsewhere = new DashboardClient(gateway.origin);
    expect((await elsewhere.signIn('careful@example.com', PASSWORD)).status).toBe(200);
    await page.getByRole('link', { name: 'Account', exact: true }).click();

    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await page.getByText('One other session was signed out.').waitFor();
    expect((await elsewhere.call('GET', '/dashboard/api/me')).status).toBe(401);

    expect((await elsewhere.signIn('careful@example.com', PASSWORD)).status).toBe(200);
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. One other session was signed out.').waitFor();
    expect((await elsewhere.call('GET', '/dashboard/api/me')).status).toBe(401);
    await page.reload();
    await page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    await page.close();
  });

  it('the quickstart uses the README\'s MUNJA_KEY, and GET / lands on the dashboard', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${gateway.origin}/`);
    await page.waitForURL('**/dashboard/sign-in');
    await signUp(page, gateway.origin, 'quick@example.com');
    await page.getByRole('link', { name: 'Quickstart' }).click();
    await page.getByRole('heading', { name: 'Base URL' }).waitFor();
    const text = await page.locator('main').textContent();
    expect(text).toContain('export MUNJA_KEY=');
    expect(text).toContain('Bearer $MUNJA_KEY');
    expect(text).not.toContain('MUNJA_API_KEY');
    await page.close();
  });

  it('fits the keys table into a phone-width screen, revoke buttons included', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize(PHONE);
    await signUp(page, gateway.origin, 'phone@example.com');
    await createKeyOnPage(page, 'a-rather-long-key-name-for-a-phone', ['auto', 'fast', 'hrllm']);
    await createKeyOnPage(page, 'second');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.locator('tr', { hasText: 'second' }).waitFor();
    const overflow = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - window.innerWidth,
      table: [...document.querySelectorAll('.table-wrap')].map((wrap) => wrap.scrollWidth - wrap.clientWidth),
    }));
    expect(overflow.page).toBeLessThanOrEqual(0);
    expect(overflow.table.every((extra) => extra <= 0)).toBe(true);
    for (const name of ['a-rather-long-key-name-for-a-phone', 'second']) {
      const box = await page.getByRole('button', { name: `Revoke ${name}` }).boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
    }
    // Each cell is labelled with its column where the header row is hidden.
    const labels = await page.locator('tr', { hasText: 'second' }).locator('td, th').evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell, '::before').content));
    expect(labels.slice(0, 7)).toEqual(['"Name"', '"Key"', '"Models"', '"RPM"', '"Created"', '"Last used"', '"Status"']);
    await page.close();
  });
});
