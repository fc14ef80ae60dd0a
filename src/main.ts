// Process entry for `munja serve`: settings, logger, the app, first-start key, signals.
import { startApp } from './app.ts';
import { createFirstKey, firstKeyBanner } from './auth/first-start.ts';
import type { CliIo } from './cli/cli-io.ts';
import { ConfigError, loadConfig } from './config/load-config.ts';
import { createLogger } from './observability/logger.ts';

export async function serve(io: CliIo): Promise<number> {
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`munja: invalid setting: ${error.message}\n`);
    return 1;
  }
  const { logger, flush } = createLogger(config.logLevel);
  const fatal = (error: unknown, origin: string) => {
    try {
      logger.fatal({ err: error, origin }, 'fatal error; exiting');
      flush();
    } finally {
      process.exit(1);
    }
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', (reason) => fatal(reason, 'unhandledRejection'));

  const app = await startApp(config, logger);
  const firstKey = await createFirstKey(app.store);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  if (firstKey !== null) io.stdout.write(firstKeyBanner(firstKey, `http://${host}:${app.port}`));
  logger.info({ host: config.host, port: app.port, models: config.models.map((model) => model.id), dataDir: config.dataDir }, 'ready');

  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal, inFlight: app.lifecycle.inFlight }, 'draining');
      // A second signal means: stop now.
      process.once(signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM', () => { flush(); process.exit(1); });
      app.shutdown().then(() => { flush(); resolve(0); }, (error: unknown) => fatal(error, 'shutdown'));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
