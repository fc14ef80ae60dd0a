// The dashboard's pages, read once at start and served from memory. Every asset (JS, CSS, SVG) is
// served under a name carrying a hash of its content — with the names it imports rewritten to
// their hashed names first — so assets are cached for a year and a new version is a new URL.
// The HTML shell is revalidated on every load (ETag; 304 when unchanged).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

export interface StaticFile {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  readonly cacheControl: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
// `from './x.js'`, `import './x.js'` and `import('./x.js')` in the dashboard's own modules.
const JS_IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)'\.\/([\w-]+\.js)'/g;

export class StaticFiles {
  readonly #assets = new Map<string, StaticFile>();
  readonly shell: StaticFile;

  /**
   * Reads `dir`: `index.html` (the shell every page route serves) and the assets it uses.
   * `htmlAttributes` go on the shell's `<html>` element: what the server tells the page at start.
   */
  constructor(dir: string, htmlAttributes: Readonly<Record<string, string>> = {}) {
    const sources = new Map<string, string>();
    for (const name of readdirSync(dir)) sources.set(name, readFileSync(join(dir, name), 'utf8'));
    const hashed = new Map<string, string>(); // source name → hashed name
    const visiting = new Set<string>();
    const nameOf = (name: string): string => {
      const done = hashed.get(name);
      if (done !== undefined) return done;
      const source = sources.get(name);
      if (source === undefined || name === 'index.html') throw new Error(`dashboard asset ${name} is missing`);
      if (visiting.has(name)) throw new Error(`dashboard modules import each other in a cycle at ${name}`);
      visiting.add(name);
      const text = extname(name) === '.js' ? source.replace(JS_IMPORT, (_, head: string, dep: string) => `${head}'./${nameOf(dep)}'`) : source;
      const body = Buffer.from(text);
      const hashedName = name.replace(/(\.\w+)$/, `.${contentHash(body).slice(0, 12)}$1`);
      hashed.set(name, hashedName);
      this.#assets.set(hashedName, makeFile(name, body, IMMUTABLE));
      return hashedName;
    };
    for (const name of sources.keys()) if (name !== 'index.html') nameOf(name);
    const html = (sources.get('index.html') ?? '').replace(/\/dashboard\/([\w.-]+)/g, (path, name: string) => {
      const asset = hashed.get(name);
      return asset === undefined ? path : `/dashboard/${asset}`;
    });
    this.shell = makeFile('index.html', Buffer.from(withHtmlAttributes(html, htmlAttributes)), REVALIDATE);
  }

  /** A hashed asset name (as the shell and modules refer to it). */
  asset(name: string): StaticFile | undefined {
    return this.#assets.get(name);
  }
}

function withHtmlAttributes(html: string, attributes: Readonly<Record<string, string>>): string {
  const text = Object.entries(attributes).map(([name, value]) => ` ${name}="${value.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`).join('');
  return html.replace(/<html\b/, `<html${text}`);
}

function makeFile(name: string, body: Buffer, cacheControl: string): StaticFile {
  const contentType = CONTENT_TYPES[extname(name)];
  if (contentType === undefined) throw new Error(`dashboard file ${name} has an unknown type`);
  return Object.freeze({ body, contentType, etag: `"${contentHash(body).slice(0, 27)}"`, cacheControl });
}

function contentHash(body: Buffer): string {
  return createHash('sha256').update(body).digest('base64url');
}
