// How a finished request ended, the same for its metrics, its log line and its trace.
import type { RequestRecord } from './request-record.ts';

/**
 * `stream_failed`: the response had started (status 200) and ended in an SSE error event, which its
 * status cannot show; `client_closed`: the client left first (status 499).
 */
export const OUTCOMES = ['ok', 'error', 'stream_failed', 'client_closed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The status answered; 499 when the client went away before the response ended. */
export function finalStatus(ctx: RequestRecord): number {
  return ctx.aborted && !ctx.finished ? 499 : ctx.status;
}

/** An index into OUTCOMES. */
export function outcomeIndex(ctx: RequestRecord): number {
  if (ctx.aborted && !ctx.finished) return 3;
  if (ctx.status >= 400) return 1;
  return ctx.errorCode !== null ? 2 : 0;
}
