// bin/munja.cjs, the `munja` npm runs: on Node 24 it is the CLI (arguments, output, exit codes); on an
// older Node it says which Node it needs and how to run Munja, instead of ERR_UNKNOWN_FILE_EXTENSION.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const LAUNCHER = fileURLToPath(new URL('../../bin/munja.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'munja-launcher-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (node: string, args: string[]) => spawnSync(node, args, { encoding: 'utf8', env: { ...process.env, MUNJA_DATA: join(dir, 'data') } });

/** A Node older than 24 on the PATH outside the project (the machine's own), if there is one. */
function olderNode(): string | undefined {
  for (const entry of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(entry, 'node');
    if (entry.includes('node_modules') || !existsSync(node)) continue;
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.split('.')[0]) < 24) return node;
  }
  return undefined;
}

function expectRefusal(result: ReturnType<typeof run>, version: string): void {
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(`munja: Munja needs Node 24 or newer, and this is Node ${version}`);
  expect(result.stderr).toContain('Run it with npm start or npx munja');
  expect(result.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
}

describe('bin/munja.cjs', () => {
  it('on Node 24 runs the CLI: its output and its exit codes', () => {
    const version = run(process.execPath, [LAUNCHER, '--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^munja \d+\.\d+\.\d+\n$/);
    const unknown = run(process.execPath, [LAUNCHER, 'start']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("did you mean 'munja serve'?");
  });

  it('on an older Node says what it needs, without loading the CLI', () => {
    const preload = join(dir, 'node-20.cjs');
    writeFileSync(preload, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.1' } });\n");
    expectRefusal(run(process.execPath, ['--require', preload, LAUNCHER, 'serve']), '20.11.1');
  });

  const machineNode = olderNode();
  it.skipIf(machineNode === undefined)(`on this machine's own Node (${machineNode})`, () => {
    const version = spawnSync(machineNode!, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    expectRefusal(run(machineNode!, [LAUNCHER, 'serve']), version);
  });
});
