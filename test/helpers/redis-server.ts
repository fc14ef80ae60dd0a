// A private redis-server per test suite, on a free port, with no persistence: tests may flush,
// stop and restart it (fault cases) without touching any other server on the machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set for the lanes that must run on a machine without Redis (test/vitest.config.ts). */
    withoutRedis?: boolean;
  }
}

export interface TestRedis {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL: like a crash) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty, unless started with `appendOnlyDir`). */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that accepts connections but answers nothing, then recovers. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

function launch(port: number, appendOnlyDir: string | undefined): Promise<ChildProcess> {
  const persistence = appendOnlyDir === undefined
    ? ['--appendonly', 'no']
    : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', appendOnlyDir];
  return spawnRedis(['--bind', '127.0.0.1', '--port', String(port), '--save', '', ...persistence, '--protected-mode', 'no']);
}

/** Starts redis-server with `args` and resolves once it prints `readyText`. */
export function spawnRedis(args: readonly string[], readyText = 'Ready to accept connections'): Promise<ChildProcess> {
  if (inject('withoutRedis') === true) {
    return Promise.reject(new Error('this lane runs without Redis: list the test file in needsRedis (test/vitest.config.ts)'));
  }
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`redis-server did not start:\n${output}`)); }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`redis-server exited with ${code}:\n${output}`)); });
  });
}

export async function terminate(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (child === null || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGCONT'); // a frozen server would not act on SIGTERM
  child.kill(signal);
  await exited;
}

export async function startRedis(options: { appendOnlyDir?: string } = {}): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | null = await launch(port, options.appendOnlyDir);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      await terminate(child, 'SIGKILL');
      child = null;
    },
    async restart() {
      await terminate(child, 'SIGKILL');
      child = await launch(port, options.appendOnlyDir);
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    async stop() {
      await terminate(child, 'SIGTERM');
      child = null;
    },
  };
}
