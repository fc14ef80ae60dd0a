// Runs `munja serve` as a real child process (the README's start path) and reads what it prints.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watchOrigin } from './watched-origins.ts';

const CLI = fileURLToPath(new URL('../../src/cli/munja.ts', import.meta.url));
const running = new Set<ChildProcess>();

/** Kills whatever a test left running (a failed assertion skips its own SIGTERM). */
export function killServeProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** The GET /metrics port from the "ready" line; null when metrics are off. */
  readonly metricsPort: number | null;
  stdout(): string;
  stderr(): string;
  /** The first-start key, read from the file the first-start log line names; null if none was created. */
  firstKey(): string | null;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Runs `munja serve` with these settings on top of the test defaults (a fresh data dir, free ports). */
export function spawnServe(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', MUNJA_METRICS_PORT: '0',
      MUNJA_DATA: mkdtempSync(join(tmpdir(), 'munja-serve-data-')), ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export async function startServeProcess(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawnServe(env);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  child.stderr!.on('data', (chunk: Buffer) => { err += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}\n${err}`));
    }, 20_000);
    const check = () => {
      const match = /"msg":"ready"/.test(out) ? /"port":(\d+)/.exec(out) : null;
      if (match) { clearTimeout(timer); resolve(Number(match[1])); }
    };
    child.stdout!.on('data', check);
    void exited.then(() => { clearTimeout(timer); reject(new Error(`server exited:\n${out}\n${err}`)); });
  });
  watchOrigin(`http://127.0.0.1:${port}`);
  watchOrigin(`https://127.0.0.1:${port}`);
  const metricsPort = /"msg":"ready"/.test(out) ? /"metricsPort":(\d+)/.exec(out) : null;
  const firstKey = () => {
    const file = /"keyFile":"([^"]+)"/.exec(out)?.[1];
    return file === undefined ? null : readFileSync(file, 'utf8').trim();
  };
  return { child, port, metricsPort: metricsPort ? Number(metricsPort[1]) : null, stdout: () => out, stderr: () => err, firstKey, exited };
}
