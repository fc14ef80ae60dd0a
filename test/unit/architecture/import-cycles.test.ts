// The floor plan's import rule (docs/architecture.md): no import circle crosses a folder. Files of
// one folder may import each other both ways; a circle through two folders (http and observability
// once made one of nine files) means neither can be understood, or changed, without the other.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');

/** Each source file's relative imports (type-only ones too: they tie the files as tightly). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        const text = readFileSync(path, 'utf8');
        const targets = [...text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)].map((match) => relative(SRC, resolve(dirname(path), match[1]!)));
        graph.set(relative(SRC, path), targets);
      }
    }
  };
  visit(SRC);
  return graph;
}

/** The graph's strongly connected components of more than one file (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return found;
}

const folderOf = (file: string) => file.split('/')[0]!;

describe('imports', () => {
  it('make no circle that crosses a folder', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(200);
    const crossing = circles(graph).filter((component) => new Set(component.map(folderOf)).size > 1);
    expect(crossing).toEqual([]);
  });

  it('finds a circle that crosses folders when there is one', () => {
    const graph = new Map([['http/a.ts', ['observability/b.ts']], ['observability/b.ts', ['observability/c.ts']], ['observability/c.ts', ['http/a.ts']], ['http/d.ts', ['http/a.ts']]]);
    expect(circles(graph)).toEqual([['http/a.ts', 'observability/b.ts', 'observability/c.ts']]);
  });
});
