// Every view the page script can show is a path the server answers with the page shell, so that
// reloading (or opening a link to) any view works.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { DASHBOARD_PAGES } from '../../../src/dashboard/pages.ts';

const app = readFileSync(new URL('../../../src/dashboard/public/app.js', import.meta.url), 'utf8');

/** The keys of one `const NAME = {…};` object literal of app.js: its views' names. */
function viewNames(constName: string, key: RegExp): string[] {
  const literal = new RegExp(`const ${constName} = \\{([\\s\\S]*?)\\};`).exec(app);
  expect(literal, constName).not.toBeNull();
  return [...literal![1]!.matchAll(key)].map((match) => match[1]!);
}

it('serves the page shell for every view of the page script', () => {
  // VIEWS has one view a line, each an object; PUBLIC_VIEWS maps names to titles on one line.
  const views = [...viewNames('VIEWS', /^\s*'?([a-z-]+)'?: \{/gm), ...viewNames('PUBLIC_VIEWS', /'?([a-z-]+)'?: '/g)];
  expect(views).toEqual(expect.arrayContaining(['keys', 'account', 'service-usage', 'sign-in', 'verify']));
  for (const view of views) expect(DASHBOARD_PAGES.has(view), view).toBe(true);
});
