// Checks made before anything listens, so that a start that cannot succeed stops at once with a
// message naming the setting, instead of failing half-way with a port already serving.
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';

/** A start-up failure whose message is complete as it is (no stack trace wanted). */
export class StartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartError';
  }
}

/**
 * uWS listens with SO_REUSEPORT, so on a port another Munja already serves it would not fail: both
 * would share the port, each with its own store and limits. A plain bind (without SO_REUSEPORT)
 * fails on a port anyone listens on, so the port is tried that way first (with port 0, only the
 * address is tried).
 */
export function checkPortFree(host: string, port: number, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new StartError(listenProblem(error, host, port, setting))));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function listenProblem(error: NodeJS.ErrnoException, host: string, port: number, setting: string): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return setting === 'MUNJA_METRICS_PORT'
        // A second instance on one machine meets this first: its API port may well be free.
        ? `${setting}: ${where} is already in use (is Munja already running?); for a second instance set MUNJA_METRICS_PORT=0 (a free port) or MUNJA_METRICS_PORT=off`
        : `${setting}: ${where} is already in use (is Munja already running?); stop that process or choose another port`;
    case 'EACCES':
      return `${setting}: no permission to listen on ${where} (ports below 1024 need privileges)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${setting === 'PORT' ? 'HOST' : 'MUNJA_METRICS_HOST'}: ${host} is not an address of this machine`;
    default:
      return `${setting}: cannot listen on ${where} (${error.code ?? error.message})`;
  }
}

/** The data dir must exist (it is created) and be readable and writable by this process. */
export function checkDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new StartError(`MUNJA_DATA: cannot use ${dir} as the data dir (${code}); set MUNJA_DATA to a directory this user can write`);
  }
}
