// pino JSON logs on an asynchronous destination (writes batched off the request path).
// Secrets are redacted wherever they could appear.
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config/config-types.ts';

export type { Logger };

export const REDACT_PATHS = [
  'authorization',
  'cookie',
  'apiKey',
  'key',
  '*.authorization',
  '*.cookie',
  '*.apiKey',
  '*.key',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
];

export interface LoggerHandle {
  readonly logger: Logger;
  /** Writes out what is buffered; call before exiting. */
  flush(): void;
}

export function createLogger(level: LogLevel, destination: number | NodeJS.WritableStream = 1): LoggerHandle {
  const options = { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (typeof destination !== 'number') {
    const logger = pino(options, destination);
    return { logger, flush: () => {} };
  }
  const stream = pino.destination({ dest: destination, sync: false });
  let ready = false;
  stream.once('ready', () => { ready = true; });
  const logger = pino(options, stream);
  return {
    logger,
    // flushSync before 'ready' throws (sonic-boom has no fd yet; nothing is buffered then), and
    // it throws EPIPE when whoever read our stdout is gone: neither may stop a shutdown.
    flush: () => {
      if (!ready) return;
      try {
        stream.flushSync();
      } catch {
        // the lines are lost either way
      }
    },
  };
}
