import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StaticFiles } from '../../../src/dashboard/static-files.ts';

const dirs: string[] = [];

function site(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'munja-static-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('StaticFiles', () => {
  it('serves assets under content-hashed names, imports rewritten, and the shell pointing at them', () => {
    const files = new StaticFiles(site({
      'index.html': '<link href="/dashboard/style.css"><script type="module" src="/dashboard/app.js"></script><a href="/dashboard/keys">',
      'app.js': "import { a } from './lib.js';\nimport('./lazy.js');",
      'lib.js': 'export const a = 1;',
      'lazy.js': "import './lib.js';",
      'style.css': 'body{}',
    }));
    const html = files.shell.body.toString();
    const app = /\/dashboard\/(app\.[\w-]{12}\.js)/.exec(html)?.[1];
    expect(html).toMatch(/\/dashboard\/style\.[\w-]{12}\.css/);
    expect(html).toContain('href="/dashboard/keys"');
    const appFile = files.asset(app!)!;
    expect(appFile.contentType).toBe('text/javascript; charset=utf-8');
    expect(appFile.cacheControl).toBe('public, max-age=31536000, immutable');
    const text = appFile.body.toString();
    expect(text).toMatch(/from '\.\/lib\.[\w-]{12}\.js'/);
    expect(text).toMatch(/import\('\.\/lazy\.[\w-]{12}\.js'\)/);
    expect(files.asset('app.js')).toBeUndefined();
    expect(files.shell.cacheControl).toBe('no-cache');
    expect(files.shell.etag).toMatch(/^"[\w-]{27}"$/);
  });

  it('gives a changed dependency a new name to everything that imports it', () => {
    const name = (lib: string) => /app\.[\w-]{12}\.js/.exec(new StaticFiles(site({
      'index.html': '<script src="/dashboard/app.js"></script>', 'app.js': "import './lib.js';", 'lib.js': lib,
    })).shell.body.toString())?.[0];
    expect(name('export const a = 1;')).not.toBe(name('export const a = 2;'));
  });

  it('puts the attributes it is given on the shell\'s <html> element, escaped', () => {
    const files = new StaticFiles(site({ 'index.html': '<!doctype html>\n<html lang="en"><body></body></html>' }), { 'data-session-cookie': 'secure', 'data-x': 'a"b' });
    expect(files.shell.body.toString()).toBe('<!doctype html>\n<html data-session-cookie="secure" data-x="a&quot;b" lang="en"><body></body></html>');
  });

  it('refuses import cycles and missing modules at start', () => {
    expect(() => new StaticFiles(site({ 'index.html': '', 'a.js': "import './b.js';", 'b.js': "import './a.js';" }))).toThrow(/cycle/);
    expect(() => new StaticFiles(site({ 'index.html': '', 'a.js': "import './gone.js';" }))).toThrow(/missing/);
  });
});
