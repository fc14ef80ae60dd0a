// SIGTERM and SIGINT: the first drains, a second stops at once; each says so on stderr for people
// (beside the JSON log lines). A terminal's Ctrl-C reaches every process of its group, and npm
// passes the SIGINT it gets on to its script, so under `npm start` one Ctrl-C arrives twice within
// a moment: a SIGINT that follows the first one that closely is the same keypress, not a second.
import type { CliOutput } from '../cli/cli-io.ts';

export const SAME_KEYPRESS_MS = 1_000;

export interface StopSignalHandlers {
  /** The first signal: drain within `graceMs`. */
  drain(signal: NodeJS.Signals): void;
  /** A second signal: stop now. */
  stopNow(signal: NodeJS.Signals): void;
}

export function onStopSignals(handlers: StopSignalHandlers, options: { readonly stderr: CliOutput; readonly graceMs: number }): void {
  let first: { signal: NodeJS.Signals; atMs: number } | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = performance.now();
    if (first === null) {
      first = { signal, atMs: now };
      const again = signal === 'SIGINT' ? 'Ctrl-C again' : `A second ${signal}`;
      options.stderr.write(`munja: ${signal}: draining; what is in flight gets up to ${Math.ceil(options.graceMs / 1000)} s to finish. ${again} stops at once.\n`);
      handlers.drain(signal);
      return;
    }
    if (signal === 'SIGINT' && first.signal === 'SIGINT' && now - first.atMs < SAME_KEYPRESS_MS) return;
    options.stderr.write(`munja: ${signal} again: stopping at once.\n`);
    handlers.stopNow(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
