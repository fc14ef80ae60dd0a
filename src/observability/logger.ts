// pino JSON logs on an asynchronous destination (writes batched off the request path).
// Secrets are redacted wherever they could appear.
import pino, { type Logger } from 'pino';
import sonicBoom from 'sonic-boom';
import type { LogLevel } from '../config/config-types.ts';
import { LogLines } from './log-lines.ts';
import { RequestLog } from './request-log.ts';

export type { Logger };

// The package is CommonJS (module.exports = the class); its types describe an ES module.
const SonicBoom = sonicBoom as unknown as typeof sonicBoom.SonicBoom;

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
  /** Every log line except the per-request one: secrets are redacted wherever they could appear. */
  readonly logger: Logger;
  /** The one line per request (observability/request-log.ts), in the same stream as the others. */
  readonly requestLog: RequestLog;
  /** Writes out what is buffered at once; for an exit that cannot wait (a write still in flight may land after it). */
  flush(): void;
  /** Writes out what is buffered, after and in order with any write in flight; for a clean shutdown. */
  drain(): Promise<void>;
}

// Lines are written in batches of 64 KiB (log-lines.ts), and at least this often: one write per
// request line was the largest single cost of a GET /v1/models (measured 37 → 14 µs CPU without
// logging). Writing a file in 64 KiB pieces took 0.55–0.73 ms of CPU per MiB, in 8 KiB pieces
// 2.7–3.1 ms (each write wakes a thread-pool thread); nginx buffers its access log by 64k as well.
const BATCH_BYTES = 64 * 1024;
const FLUSH_EVERY_MS = 100;
// What waits for a slow or failing destination is bounded; lines beyond it are dropped (about two
// seconds of request lines at 30k req/s).
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const DRAIN_TIMEOUT_MS = 2_000;

export function createLogger(level: LogLevel, destination: number | NodeJS.WritableStream = 1): LoggerHandle {
  const base = { pid: process.pid };
  const options = { level, base, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const minLevel = level === 'silent' ? Number.POSITIVE_INFINITY : pino.levels.values[level] ?? 30;
  if (typeof destination !== 'number') {
    const streamLines = new LogLines((region) => destination.write(region), { eachLine: true });
    return { logger: pino(options, destination), requestLog: new RequestLog(streamLines, minLevel), flush: () => {}, drain: async () => {} };
  }
  // sonic-boom is pino's own destination, in buffer mode: it keeps the batches handed to it as
  // they are. Version 5 is used directly because 4 (pino's) retries a failed synchronous flush
  // forever, which would hang a shutdown on a full disk.
  const stream = new SonicBoom({
    dest: destination,
    sync: false,
    minLength: BATCH_BYTES,
    maxWrite: BATCH_BYTES * 2,
    maxLength: MAX_BUFFERED_BYTES,
    contentMode: 'buffer',
  });
  const writeBuffer = stream.write.bind(stream) as unknown as (data: Buffer) => boolean; // typed for strings only
  const batch = new LogLines(writeBuffer);
  const lines: pino.DestinationStream = { write: (line) => batch.appendLine(line) };
  let ready = false;
  stream.once('ready', () => { ready = true; });
  // A destination that fails (its reader gone, a full disk) or falls behind costs lines, not the
  // gateway: serving goes on, and stderr says so once rather than once per line.
  let reportedLoss = false;
  const reportLoss = (reason: string) => {
    if (reportedLoss) return;
    reportedLoss = true;
    process.stderr.write(`munja: log lines are being lost: ${reason}\n`);
  };
  stream.on('error', (error: Error) => reportLoss(error.message));
  stream.on('drop', () => reportLoss(`the log destination is ${MAX_BUFFERED_BYTES / 1024 / 1024} MiB behind`));
  // Only when something was logged: an idle gateway makes no empty writes.
  setInterval(() => {
    if (!ready || !batch.pending) return;
    batch.handOver();
    stream.flush();
  }, FLUSH_EVERY_MS).unref();
  return {
    logger: pino(options, lines),
    requestLog: new RequestLog(batch, minLevel),
    // flushSync before 'ready' throws (sonic-boom has no fd yet; nothing is buffered then), and
    // it throws EPIPE when whoever read our stdout is gone: neither may stop a shutdown.
    flush: () => {
      batch.handOver();
      if (!ready) return;
      try {
        stream.flushSync();
      } catch {
        // the lines are lost either way
      }
    },
    // sonic-boom calls back once its in-flight write and everything queued behind it are written.
    // A destination that never takes them (a stalled pipe) must not hold a shutdown: bounded.
    drain: () => new Promise<void>((resolve) => {
      batch.handOver();
      if (!ready) return resolve();
      const timer = setTimeout(resolve, DRAIN_TIMEOUT_MS).unref();
      stream.flush(() => { clearTimeout(timer); resolve(); });
    }),
  };
}
