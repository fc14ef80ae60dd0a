// Every relative link in the README and docs/*.md points to a file that exists and, when it names
// a heading (#anchor) in a Markdown file, to a heading that exists, so moving text cannot leave a
// dead link behind.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOCS = ['README.md', 'SECURITY.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered;
// inline code in a heading keeps its text (`openai` SDK -> openai-sdk).
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function withoutFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/`[^`\n]*`/g, '');
}

function relativeLinks(markdown: string): string[] {
  const links = [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]!);
  return links.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link));
}

const LINKS = DOCS.flatMap((doc) => relativeLinks(readFileSync(join(ROOT, doc), 'utf8')).map((link) => [doc, link] as const));

describe('relative links in the docs', () => {
  it('finds the links to check', () => {
    expect(LINKS.length).toBeGreaterThan(0);
  });

  it.each(LINKS)('%s: %s exists', (doc, link) => {
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? join(ROOT, doc) : join(dirname(join(ROOT, doc)), decodeURIComponent(path));
    expect(existsSync(target), `${relative(ROOT, target)} exists`).toBe(true);
    if (anchor && target.endsWith('.md')) {
      expect(anchorsOf(readFileSync(target, 'utf8'))).toContain(decodeURIComponent(anchor));
    }
  });
});
