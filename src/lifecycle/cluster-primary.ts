// The primary of `munja serve` with several workers: forks them (each serves the same port; the
// kernel spreads connections through SO_REUSEPORT), restarts one that dies, and on SIGTERM or
// SIGINT drains them all before exiting; a second signal kills them. Workers share nothing in
// memory: what is shared lives in Redis.
import cluster, { type Worker } from 'node:cluster';
import type { CliOutput } from '../cli/cli-io.ts';
import type { Logger } from '../observability/logger.ts';
import { onStopSignals } from './stop-signals.ts';

export interface PrimaryOptions {
  readonly workers: number;
  readonly logger: Logger;
  /** How long a worker's drain may take (its delay and grace) before it is killed. */
  readonly shutdownGraceMs: number;
  /**
   * The port every worker serves. With 0, the first worker lets the kernel choose one and the
   * others join it once it is listening: a port picked and released by the primary could be taken
   * by any outgoing connection before the workers bind it.
   */
  readonly port: number;
  /** Where the lines for people go (a signal's drain). */
  readonly stderr: CliOutput;
  /**
   * Called on SIGHUP; true passes it on to every worker (each reloads its config and its TLS
   * certificate) and logs, once all have answered, how many reloaded.
   */
  readonly onSighup: () => boolean;
  /** Called once, when every first-generation worker is serving on `port`. */
  readonly onAllReady: (port: number) => void;
}

// A worker that dies this soon after starting is crash-looping: restart it more slowly.
const QUICK_DEATH_MS = 5_000;
const MAX_RESTART_DELAY_MS = 10_000;
// Past this, a reload's tally is logged with the workers that have not answered.
const RELOAD_ANSWER_WAIT_MS = 10_000;

/** A worker's answer to a forwarded SIGHUP. */
export interface WorkerReloaded {
  readonly type: 'munja:reloaded';
  readonly ok: boolean;
}

interface ReloadTally {
  waiting: number;
  reloaded: number;
  refused: number;
  readonly timer: NodeJS.Timeout;
}

export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  let stopping = false;
  let failed = false;
  let restartDelayMs = 0;
  const startedAt = new Map<Worker, number>();

  let port = options.port;
  let waitingForReady = options.workers;
  let tally: ReloadTally | null = null;
  const logTally = (current: ReloadTally) => {
    clearTimeout(current.timer);
    tally = null;
    const { reloaded, refused, waiting } = current;
    logger[refused + waiting > 0 ? 'warn' : 'info']({ reloaded, refused, noAnswer: waiting }, 'config reload in workers done');
  };
  const countReload = (message: WorkerReloaded) => {
    if (tally === null) return;
    tally.waiting -= 1;
    if (message.ok) tally.reloaded += 1;
    else tally.refused += 1;
    if (tally.waiting === 0) logTally(tally);
  };
  const fork = () => {
    const worker = cluster.fork({ PORT: String(port) });
    startedAt.set(worker, Date.now());
    worker.on('message', (message: { type?: string; port?: number; ok?: boolean }) => {
      if (message?.type === 'munja:reloaded') return countReload(message as WorkerReloaded);
      if (message?.type !== 'munja:ready') return;
      logger.info({ workerPid: worker.process.pid }, 'worker ready');
      if (port === 0 && typeof message.port === 'number') {
        port = message.port;
        forkTheRest();
      }
      if (waitingForReady === 0) return;
      waitingForReady -= 1;
      if (waitingForReady === 0) options.onAllReady(port);
    });
  };
  const forkTheRest = () => {
    for (let i = 1; i < options.workers; i++) fork();
  };

  return new Promise((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const lived = Date.now() - (startedAt.get(worker) ?? 0);
      startedAt.delete(worker);
      if (stopping) {
        if (startedAt.size === 0) resolve(failed ? 1 : 0);
        return;
      }
      if (waitingForReady > 0) {
        // A worker of the first generation that dies cannot start (its own line says why), and its
        // replacement would fail the same way: stop rather than serve with fewer workers than asked.
        failed = true;
        logger.fatal({ workerPid: worker.process.pid, code, signal }, 'a worker could not start; stopping');
        stop('SIGTERM');
        return;
      }
      restartDelayMs = lived < QUICK_DEATH_MS ? Math.min(MAX_RESTART_DELAY_MS, Math.max(100, restartDelayMs * 2)) : 0;
      logger.error({ workerPid: worker.process.pid, code, signal, restartInMs: restartDelayMs }, 'worker died; restarting it');
      setTimeout(fork, restartDelayMs).unref();
    });

    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal, workers: startedAt.size }, 'draining workers');
      for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
      if (startedAt.size === 0) resolve(failed ? 1 : 0);
      // Workers drain within their own grace; past it (plus a margin) they are killed.
      setTimeout(() => {
        for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
      }, options.shutdownGraceMs + 5_000).unref();
    };
    const killAll = (signal: NodeJS.Signals) => {
      logger.warn({ signal, workers: startedAt.size }, 'second signal: stopping workers at once');
      failed = true;
      for (const worker of startedAt.keys()) worker.process.kill('SIGKILL');
    };
    onStopSignals({ drain: stop, stopNow: killAll }, { stderr: options.stderr, graceMs: options.shutdownGraceMs });
    process.on('SIGHUP', () => {
      if (stopping || !options.onSighup()) return;
      if (tally !== null) logTally(tally);
      const started: ReloadTally = { waiting: startedAt.size, reloaded: 0, refused: 0, timer: setTimeout(() => logTally(started), RELOAD_ANSWER_WAIT_MS) };
      started.timer.unref();
      tally = started;
      for (const worker of startedAt.keys()) worker.process.kill('SIGHUP');
    });

    fork();
    if (port !== 0) forkTheRest();
  });
}
