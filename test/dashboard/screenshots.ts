// Regenerates the dashboard screenshots under docs/ (shown in docs/dashboard.md and the README):
//   node test/dashboard/screenshots.ts
// A gateway in-process, Debian's Chromium, a few accounts and keys, and 30 days of usage (today's
// from real requests, the earlier days written to the store directly so the chart has a shape).
import { mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.ts';
import { startGateway } from '../helpers/gateway.ts';
import { createKeyOnPage as createKey, signUp as signUpOnPage } from '../helpers/dashboard-pages.ts';
import { chatBody } from '../helpers/http.ts';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const DAY_MS = 86_400_000;

const gateway = await startGateway();
const browser = await launchBrowser({ viewport: { width: 1200, height: 820 } });
try {
  mkdirSync(DOCS, { recursive: true });
  const page = await browser.context.newPage();
  const shoot = async (name: string, fullPage = false) => {
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${DOCS}${name}`, animations: 'disabled', caret: 'hide', fullPage });
    console.log(`${name}: ${Math.round(statSync(`${DOCS}${name}`).size / 1024)} KiB`);
  };

  await page.goto(`${gateway.origin}/dashboard/sign-in`);
  await page.getByLabel('Email').fill('ana@example.com');
  await shoot('dashboard-sign-in.png');

  for (const email of ['ops@example.com', 'bo@example.com', 'cy@example.com']) {
    await signUp(page, email);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Munja' }).waitFor();
  }
  await gateway.app.store.setAccountStatus('cy@example.com', 'suspended');
  await gateway.app.store.setAccountAdmin('ana@example.com', true);
  await signUp(page, 'ana@example.com');
  await gateway.app.store.setAccountAdmin('ana@example.com', true);
  await page.reload();
  await page.getByRole('link', { name: 'Accounts' }).waitFor();

  const keys = [await createKey(page, 'backend-production', ['auto', 'hrllm']), await createKey(page, 'nightly-batch', [])];
  for (let i = 0; i < 6; i++) await chat(keys[i % 2]!);
  await seedHistory();
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the usage recorder flushes once a second
  await createKey(page, 'staging');
  await page.locator('strong', { hasText: 'Copy it now' }).waitFor();
  await shoot('dashboard-keys.png', true);

  await page.getByRole('link', { name: 'Usage', exact: true }).click();
  await page.locator('svg.chart').waitFor();
  await page.getByText('Tokens', { exact: true }).click();
  await page.locator('figure.chart-figure').waitFor();
  await shoot('dashboard-usage.png');

  await page.getByRole('link', { name: 'Quickstart' }).click();
  await shoot('dashboard-quickstart.png');

  await page.reload();
  await page.getByRole('link', { name: 'Accounts' }).click();
  await page.locator('tbody tr').nth(3).waitFor();
  await shoot('dashboard-admin.png');

  await page.getByRole('link', { name: 'Service usage' }).click();
  await page.getByText('Tokens', { exact: true }).click();
  await page.locator('figure.chart-figure').waitFor();
  await shoot('dashboard-service-usage.png');

  // Phone width (an iPhone 12–15's CSS viewport): the keys table stacks each key's cells.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('link', { name: 'API keys' }).click();
  await page.locator('tr', { hasText: 'staging' }).waitFor();
  await shoot('dashboard-keys-phone.png', true);
  await page.getByRole('link', { name: 'Usage', exact: true }).click();
  await page.getByText('Tokens', { exact: true }).click();
  await page.locator('figure.chart-figure').waitFor();
  await page.locator('#table-title').evaluate((title) => title.scrollIntoView({ block: 'center' }));
  await shoot('dashboard-usage-phone.png');
} finally {
  await browser.close();
  await gateway.close();
}

async function signUp(page: Page, email: string): Promise<void> {
  await signUpOnPage(page, gateway.origin, email);
}

async function chat(key: string): Promise<void> {
  const response = await fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody({ model: 'auto', max_tokens: 40 }),
  });
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

/** Earlier days of usage for ana's keys, with a weekly rhythm and growth. */
async function seedHistory(): Promise<void> {
  const account = await gateway.app.store.findAccountByEmail('ana@example.com');
  const own = await gateway.app.store.listKeys(account!.id);
  const deltas = [];
  for (let back = 29; back >= 0; back--) {
    const day = new Date(Date.now() - back * DAY_MS).toISOString().slice(0, 10);
    const weekday = new Date(day).getUTCDay();
    const base = ((weekday === 0 || weekday === 6 ? 40 : 120) + (30 - back) * 6) * (back === 0 ? 0.4 : 1); // today: so far
    for (const [i, key] of own.entries()) {
      const requests = Math.round(base * (i === 0 ? 1 : 0.45) * (0.8 + ((back * 7 + i * 3) % 5) / 10));
      deltas.push({ keyId: key.id, day, model: 'model-a', requests, promptTokens: requests * 52, completionTokens: requests * 181, costMicros: requests * 200 });
    }
  }
  await gateway.app.store.addUsage(deltas);
}
