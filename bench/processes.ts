// Child processes of a bench run: started with a name, stopped by PID (SIGTERM, then SIGKILL),
// and all stopped on the way out, including on an error or Ctrl-C.
import { type ChildProcess, execFile, spawn, type StdioOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const STOP_GRACE_MS = 5_000;
const STDERR_KEEP_BYTES = 16 * 1024;

export interface Started {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** The last few KB the process wrote to stderr (for error messages). */
  stderrTail(): string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>;
}

export interface StopOutcome {
  readonly name: string;
  readonly exit: number | string;
  readonly ms: number;
  /** True when SIGTERM was not enough. */
  readonly killed: boolean;
}

const running = new Map<number, Started>();

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** stdout: 'pipe' to read it, 'ignore', or a file descriptor to write it to. */
  readonly stdout?: 'pipe' | 'ignore' | number;
  /** CPUs to pin the process to (`taskset -c`), e.g. '1'; ignored when taskset is missing. */
  readonly cpus?: string;
  readonly cwd?: string;
}

let tasksetAvailable: boolean | undefined;

/** Whether `taskset` can pin processes here (checked once). */
export async function canPin(): Promise<boolean> {
  tasksetAvailable ??= (await tryCommand('taskset', ['-c', '0', 'true'])) !== undefined;
  return tasksetAvailable;
}

/** Pins this process, all its threads included, to `cpus` (the load generator's CPU). */
export async function pinSelf(cpus: string): Promise<boolean> {
  return (await canPin()) && (await tryCommand('taskset', ['-a', '-p', '-c', cpus, String(process.pid)])) !== undefined;
}

/** Starts `node <args>` with the Node that runs the bench (the project's Node 24). */
export function startNode(name: string, args: readonly string[], options: StartOptions = {}): Started {
  return startProcess(name, process.execPath, args, options);
}

/**
 * Starts a program; with `cpus` through `taskset -c`, which execs it: the PID is the program's own.
 * Call canPin() first: without taskset the program runs unpinned.
 */
export function startProcess(name: string, file: string, args: readonly string[], options: StartOptions = {}): Started {
  const stdio: StdioOptions = ['ignore', options.stdout ?? 'pipe', 'pipe'];
  const pinned = options.cpus !== undefined && tasksetAvailable === true;
  const child = pinned
    ? spawn('taskset', ['-c', options.cpus!, file, ...args], { env: options.env ?? process.env, stdio, cwd: options.cwd })
    : spawn(file, args, { env: options.env ?? process.env, stdio, cwd: options.cwd });
  if (child.pid === undefined) throw new Error(`${name}: could not start`);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEEP_BYTES);
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child.pid!);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const started: Started = { name, pid: child.pid, child, stderrTail: () => stderr, exited };
  running.set(child.pid, started);
  return started;
}

/** Resolves with the first stdout line that `pick` maps to a value; rejects on exit or timeout. */
export function firstLine<T>(started: Started, pick: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
  const stdout = started.child.stdout;
  if (stdout === null) return Promise.reject(new Error(`${started.name}: stdout is not piped`));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const value = pick(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (value !== undefined) return finish(() => resolve(value));
      }
    };
    const timer = setTimeout(() => finish(() => reject(new Error(`${started.name}: no expected output within ${timeoutMs} ms`))), timeoutMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      stdout.off('data', onData);
      settle();
    };
    stdout.on('data', onData);
    void started.exited.then((exit) => finish(() => reject(new Error(`${started.name} exited (${exit}): ${started.stderrTail()}`))));
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stop(started: Started, graceMs = STOP_GRACE_MS): Promise<StopOutcome> {
  const begin = performance.now();
  let killed = false;
  if (running.has(started.pid)) {
    signal(started.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      killed = true;
      signal(started.pid, 'SIGKILL');
    }, graceMs);
    await started.exited;
    clearTimeout(timer);
  }
  return { name: started.name, exit: await started.exited, ms: Math.round(performance.now() - begin), killed };
}

/**
 * A run's scratch directory, and `cleanUp` (once, however often called) stopping every process
 * started and removing the directory; Ctrl-C or SIGTERM cleans up and exits 130.
 */
export function benchScratch(prefix: string): { readonly tempDir: string; readonly cleanUp: () => Promise<void> } {
  const tempDir = mkdtempSync(join(tmpdir(), prefix));
  let cleaning: Promise<void> | undefined;
  const cleanUp = () => (cleaning ??= (async () => {
    await stopAll();
    rmSync(tempDir, { recursive: true, force: true });
  })());
  for (const name of ['SIGINT', 'SIGTERM'] as const) {
    process.once(name, () => {
      process.stderr.write(`\nbench: ${name}: stopping the processes it started\n`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  return { tempDir, cleanUp };
}

/** Stops every process this module started that is still running. */
export async function stopAll(): Promise<StopOutcome[]> {
  return Promise.all([...running.values()].map((started) => stop(started)));
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Runs `node <args>` to completion and returns its stdout; rejects on a non-zero exit. */
export function runNode(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env, timeout: timeoutMs, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Runs a command and returns its trimmed stdout, or undefined when it fails. */
export function tryCommand(file: string, args: readonly string[], cwd?: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 10_000 }, (error, stdout) => resolve(error ? undefined : stdout.trim()));
  });
}
