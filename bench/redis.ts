// A private redis-server for the Redis-limiter runs (never anyone else's): a free port, no
// persistence, pinned with the mock and the load generator, stopped by its PID like the rest.
import { freePort } from './peer/free-port.ts';
import { firstLine, type Started, startProcess, tryCommand } from './processes.ts';

export interface Redis {
  readonly process: Started;
  readonly url: string;
  readonly version: string;
}

export async function startRedis(cpus: string | undefined): Promise<Redis | string> {
  const version = /v=(\S+)/.exec((await tryCommand('redis-server', ['--version'])) ?? '')?.[1];
  if (version === undefined) return 'redis-server is not installed';
  const port = await freePort();
  const args = ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];
  const started = startProcess('redis-server', 'redis-server', args, cpus === undefined ? {} : { cpus });
  try {
    await firstLine(started, (line) => (line.includes('Ready to accept connections') ? true : undefined), 10_000);
  } catch (error) {
    return `redis-server did not start: ${(error as Error).message}`;
  }
  return { process: started, url: `redis://127.0.0.1:${port}`, version };
}
