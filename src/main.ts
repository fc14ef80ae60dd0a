// Process entry for `munja serve`: settings, logger, then either one process serving the port or
// a primary with several workers (node:cluster), first-start key, signals.
import cluster from 'node:cluster';
import pino from 'pino';
import { startApp, type RunningApp } from './app.ts';
import { FIRST_ADMIN_EMAIL, createFirstKey, type FirstKey } from './auth/first-start.ts';
import { firstStartNotice } from './auth/first-start-notice.ts';
import { EXIT_FAILURE, type CliIo } from './cli/cli-io.ts';
import type { Config } from './config/config-types.ts';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { runPrimary, type WorkerReloaded } from './lifecycle/cluster-primary.ts';
import { auditReload, logReload, reloadConfig } from './lifecycle/config-reload.ts';
import { watchConfigFile } from './lifecycle/config-watch.ts';
import { writePidFile } from './lifecycle/pid-file.ts';
import { primaryReload } from './lifecycle/primary-reload.ts';
import { disablePretenuring } from './lifecycle/heap-tuning.ts';
import { checkDataDir, checkPortFree } from './lifecycle/start-checks.ts';
import { startNotes } from './lifecycle/start-notes.ts';
import { onStopSignals } from './lifecycle/stop-signals.ts';
import { createLogger, type Logger, type LoggerHandle } from './observability/logger.ts';
import { renderCluster, startMetricsServer } from './observability/metrics-server.ts';
import { CLI_ACTOR } from './store/audit.ts';
import { openStore } from './store/open-store.ts';
import { redactRedisUrl } from './store/redis-url.ts';

interface Process {
  readonly config: Config;
  readonly io: CliIo;
  readonly logger: Logger;
  readonly logs: LoggerHandle;
  readonly flush: () => void;
  /** SIGHUP while starting: logged and ignored (its default would end the process). */
  readonly hupWhileStarting: () => void;
  fatal(error: unknown, origin: string): never;
}

export async function serve(io: CliIo): Promise<number> {
  disablePretenuring();
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return startFailed(io, `invalid setting: ${error.message}`);
  }
  const logs = createLogger(config.logLevel);
  const { logger, flush } = logs;
  const fatal = (error: unknown, origin: string): never => {
    try {
      logger.fatal({ err: error, origin }, 'fatal error; exiting');
      flush();
    } finally {
      process.exit(1);
    }
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandledRejection'));
  const hupWhileStarting = () => logger.warn('SIGHUP while starting: ignored; send it again once the server is ready');
  process.on('SIGHUP', hupWhileStarting);
  const proc: Process = { config, io, logger, logs, flush, hupWhileStarting, fatal };
  try {
    if (cluster.isPrimary) await checkBeforeListening(config);
    if (cluster.isPrimary && config.workers > 1) return await servePrimary(proc);
    return await serveOne(proc);
  } catch (error) {
    // One line, and the caller exits: a listening socket or a thread pool must not keep a
    // half-started server alive.
    flush();
    return startFailed(io, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** One JSON line for the log pipeline (written at once: the process exits next) and one for people. */
function startFailed(io: CliIo, reason: string): number {
  pino({ base: { pid: process.pid } }, { write: (line: string) => io.stdout.write(line) }).fatal({ reason }, 'start failed');
  io.stderr.write(`munja: ${reason}\n`);
  return EXIT_FAILURE;
}

/** What can be known to fail before anything listens. Workers leave it to their primary. */
async function checkBeforeListening(config: Config): Promise<void> {
  await checkPortFree(config.host, config.port, 'PORT');
  if (config.metrics !== null) await checkPortFree(config.metrics.host, config.metrics.port, 'MUNJA_METRICS_PORT');
  if (config.redis === null) checkDataDir(config.dataDir);
}

function announceFirstKey({ config, io, logger }: Process, firstKey: FirstKey | null, port: number): void {
  if (firstKey === null) return;
  logger.info({ account: FIRST_ADMIN_EMAIL, keyId: firstKey.keyId, keyFile: firstKey.file }, 'first start: created an admin account and its first API key');
  io.stderr.write(firstStartNotice(firstKey, { config, port, env: io.env, cwd: process.cwd() }));
}

function announceReady({ config, io, logger }: Process, port: number, metricsPort: number | null): void {
  for (const { level, text } of startNotes(config)) {
    io.stderr.write(`munja: ${text}\n`);
    logger[level](text);
  }
  logger.info(readyLine(config, port, metricsPort), 'ready');
}

function readyLine(config: Config, port: number, metricsPort: number | null): Record<string, unknown> {
  return {
    host: config.host,
    port,
    tls: config.tls !== null,
    metricsPort,
    workers: config.workers,
    models: config.models.map((model) => model.id),
    store: config.redis ? redactRedisUrl(config.redis.url) : config.dataDir,
  };
}

/** One process serving the port: the default, and every cluster worker. */
async function serveOne(proc: Process): Promise<number> {
  const { config, logger, logs, flush, fatal } = proc;
  const app = await startApp(config, logs);
  let removePidFile: () => void = () => {};
  let stopWatching: () => void = () => {};
  if (cluster.isWorker) {
    process.send?.({ type: 'munja:ready', port: app.port });
  } else {
    announceFirstKey(proc, await createFirstKey(app.store, config.dataDir), app.port);
    removePidFile = pidFileOrWarning(proc);
    stopWatching = watchIfAsked(proc);
    announceReady(proc, app.port, app.metricsPort);
  }
  return new Promise((resolve) => {
    const drain = (signal: NodeJS.Signals) => {
      // /readyz turns 503 at once, but the port stays open for drainDelayMs: a load balancer still
      // sends requests until its next probes fail, and a closed port would refuse them.
      app.lifecycle.beginDrain();
      stopWatching();
      logger.info({ signal, inFlight: app.lifecycle.inFlight, drainDelayMs: config.drainDelayMs }, 'draining');
      const propagated = new Promise((resume) => setTimeout(resume, config.drainDelayMs));
      propagated.then(() => app.shutdown()).then(() => logs.drain()).then(() => {
        removePidFile();
        // A worker's IPC channel to the primary would keep it alive; and whatever else still holds
        // the event loop (a stray socket in a library) must not turn a clean drain into a hang.
        if (cluster.isWorker) process.disconnect?.();
        setTimeout(() => process.exit(0), 1_000).unref();
        resolve(0);
      }, (error: unknown) => fatal(error, 'shutdown'));
    };
    const stopNow = (signal: NodeJS.Signals) => {
      logger.warn({ signal, inFlight: app.lifecycle.inFlight }, 'second signal: stopping at once');
      flush();
      process.exit(1);
    };
    // SIGHUP reloads the config (and, with TLS, re-reads the certificate and key).
    process.off('SIGHUP', proc.hupWhileStarting);
    process.on('SIGHUP', () => reloadOnSignal(proc, app));
    if (cluster.isWorker) {
      // The primary speaks to people and sends SIGTERM; Ctrl-C, which reaches every process of the
      // group, is left to it.
      let stopping = false;
      process.on('SIGTERM', (signal: NodeJS.Signals) => {
        if (stopping) return stopNow(signal);
        stopping = true;
        drain(signal);
      });
      process.on('SIGINT', () => {});
      return;
    }
    onStopSignals({ drain, stopNow }, { stderr: proc.io.stderr, graceMs: config.drainDelayMs + config.shutdownGraceMs });
  });
}

function reloadOnSignal(proc: Process, app: RunningApp): void {
  const { config, io, logger } = proc;
  if (config.tls) reloadTls(app, logger);
  const outcome = reloadConfig(app, () => loadConfig(io.env));
  if (cluster.isWorker) {
    // The primary checked the file first, logs the restart warning and audits the reload, once.
    if (outcome.ok) logger.info({ changed: outcome.changed }, 'config reloaded');
    else logReload(logger, outcome);
    process.send?.({ type: 'munja:reloaded', ok: outcome.ok } satisfies WorkerReloaded);
    return;
  }
  logReload(logger, outcome);
  void auditReload(app.store, CLI_ACTOR, config.configFile ?? '', outcome, logger);
}

/** The pid file for `munja reload`; a server that cannot write one still serves (SIGHUP works). */
function pidFileOrWarning({ config, logger }: Process): () => void {
  try {
    return writePidFile(config.dataDir);
  } catch (error) {
    logger.warn({ err: error }, 'cannot write the pid file; `munja reload` will not find this server (send it SIGHUP)');
    return () => {};
  }
}

/**
 * With `server.watchConfig`, a change to the file reloads it by the signal's own path (the primary
 * checks it and passes it on to its workers). Whether it watches is settled at start.
 */
function watchIfAsked({ config, logger }: Process): () => void {
  if (!config.watchConfig || config.configFile === null) return () => {};
  try {
    return watchConfigFile(config.configFile, () => process.kill(process.pid, 'SIGHUP'), (error) => logger.warn({ err: error }, 'config file watch failed; reload with munja reload'));
  } catch (error) {
    logger.warn({ err: error }, 'cannot watch the config file; reload with munja reload');
    return () => {};
  }
}

function reloadTls(app: { reloadTls(): void }, logger: Logger): void {
  try {
    app.reloadTls();
    logger.info('tls certificate reloaded');
  } catch (error) {
    logger.error({ err: error }, 'tls reload failed; still serving the previous certificate');
  }
}

async function servePrimary(proc: Process): Promise<number> {
  const { config, logger } = proc;
  const store = await openStore(config);
  // oxlint-disable-next-line typescript/no-misused-promises -- finally() waits for the promise it is given
  const firstKey = await createFirstKey(store, config.dataDir).finally(() => store.close());
  // The primary serves GET /metrics: the sum of what every worker reports.
  const metrics = config.metrics === null ? null : await startMetricsServer(config.metrics, renderCluster(), logger);
  let removePidFile: () => void = () => {};
  let stopWatching: () => void = () => {};
  process.off('SIGHUP', proc.hupWhileStarting);
  const exitCode = await runPrimary({
    workers: config.workers,
    logger,
    shutdownGraceMs: config.drainDelayMs + config.shutdownGraceMs,
    port: config.port,
    stderr: proc.io.stderr,
    onSighup: primaryReload(config, proc.io.env, logger),
    onAllReady: (port) => {
      announceFirstKey(proc, firstKey, port);
      removePidFile = pidFileOrWarning(proc);
      stopWatching = watchIfAsked(proc);
      announceReady(proc, port, metrics?.port ?? null);
    },
  });
  stopWatching();
  removePidFile();
  await metrics?.close();
  await proc.logs.drain();
  return exitCode;
}

