// What a person does on the dashboard pages, for the browser tests and the screenshot script.
import type { Page } from 'playwright-core';

export const PASSWORD = 'correct horse battery';

export async function signUp(page: Page, origin: string, email: string): Promise<void> {
  await page.goto(`${origin}/dashboard/sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

/** Creates a key on the keys page and returns it as shown (once). */
export async function createKeyOnPage(page: Page, name: string, models: readonly string[] = []): Promise<string> {
  const dismiss = page.getByRole('button', { name: 'I have stored it' });
  if (await dismiss.count()) await dismiss.click();
  await page.getByLabel('Name', { exact: true }).fill(name);
  for (const model of models) await page.getByRole('checkbox', { name: model, exact: true }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('tr', { hasText: name }).waitFor();
  return (await page.locator('#new-key').textContent()) ?? '';
}
