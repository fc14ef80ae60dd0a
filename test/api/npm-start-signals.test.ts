// `npm start` as a newcomer runs it, a real npm and a real Munja: a signal sent to npm's PID alone
// reaches Munja (the script execs it, and npm passes SIGINT and SIGTERM on to its script), a Ctrl-C
// from a terminal (SIGINT to the whole process group, which npm passes on again) drains once and
// says so on stderr, and a second Ctrl-C stops at once.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SAME_KEYPRESS_MS } from '../../src/lifecycle/stop-signals.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'munja-npm-start-'));
const groups: number[] = [];

interface NpmStart {
  readonly npm: ChildProcess;
  readonly munjaPid: number;
  out(): string;
  err(): string;
  readonly exited: Promise<number | null>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` in its own process group (as a terminal would start it), once Munja is ready. */
async function npmStart(name: string, env: Record<string, string> = {}): Promise<NpmStart> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MUNJA_METRICS_PORT: 'off', MUNJA_DATA: join(dir, name), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(npm.pid!);
  let out = '';
  let err = '';
  npm.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  npm.stderr!.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  await vi.waitFor(() => expect(out, err).toContain('"msg":"ready"'), { timeout: 30_000, interval: 50 });
  const munjaPid = Number(/"pid":(\d+)[^\n]*"msg":"ready"/.exec(out)![1]);
  expect(munjaPid).not.toBe(npm.pid);
  return { npm, munjaPid, out: () => out, err: () => err, exited };
}

afterEach(() => {
  // Whatever a failed test left running: only the groups this file started.
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm start and signals', { timeout: 60_000 }, () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('%s sent to npm’s PID alone drains Munja; both exit 0', async (signal) => {
    const started = await npmStart(signal);
    started.npm.kill(signal);
    expect(await started.exited).toBe(0);
    await vi.waitFor(() => expect(isAlive(started.munjaPid)).toBe(false));
    expect(started.err()).toContain(`munja: ${signal}: draining; what is in flight gets up to 17 s to finish.`);
    expect(started.out()).toMatch(/"drained":true[^\n]*"msg":"stopped"/);
  });

  it('Ctrl-C from a terminal (the whole group, passed on by npm too) drains once; a second one stops at once', async () => {
    const config = join(dir, 'long-drain.json');
    writeFileSync(config, JSON.stringify({ server: { drainDelayMs: 60_000 } }));
    const started = await npmStart('ctrl-c', { MUNJA_CONFIG: config });
    process.kill(-started.npm.pid!, 'SIGINT');
    await vi.waitFor(() => expect(started.out()).toContain('"msg":"draining"'));
    expect(started.err()).toContain('munja: SIGINT: draining; what is in flight gets up to 75 s to finish. Ctrl-C again stops at once.');
    // npm's copy of the same keypress arrives within the window and is not taken for a second one.
    await new Promise((resolve) => setTimeout(resolve, SAME_KEYPRESS_MS + 200));
    expect(isAlive(started.munjaPid)).toBe(true);
    expect(started.err()).not.toContain('again: stopping at once');

    process.kill(-started.npm.pid!, 'SIGINT');
    expect(await started.exited).toBe(1);
    await vi.waitFor(() => expect(isAlive(started.munjaPid)).toBe(false));
    expect(started.err()).toContain('munja: SIGINT again: stopping at once.');
    expect(started.out()).toContain('"msg":"second signal: stopping at once"');
    expect(started.out()).not.toContain('"msg":"stopped"');
  });
});
