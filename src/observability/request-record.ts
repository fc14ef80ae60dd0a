// What the request log, the metrics and the traces read of a request: who asked for what, and how it
// ended. http/request-context.ts implements it (the request's own object, nothing copied), so that
// observability needs nothing of http's.

import type { PriorityBand } from '../config/config-types.ts';
import type { RequestTrace } from './request-trace.ts';

/** The route name of a request no route took: a bounded label, unlike its path. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface RequestRecord {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly clientAddress: string;
  /** The matched route's name (http/router.ts), or UNMATCHED_ROUTE. */
  readonly route: string;
  readonly aborted: boolean;
  /** Answered in full. */
  readonly finished: boolean;
  /** Status sent (0 until the response has started). */
  readonly status: number;

  // The outcome, filled in as the request goes.
  readonly keyId: string | null;
  readonly model: string | null;
  readonly stream: boolean;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** What the request cost, in micro-units of the budgets' currency (0 for an unpriced model). */
  readonly cost: number;
  readonly errorCode: string | null;
  /** ms from the start to the response's first byte. */
  readonly firstByteMs: number | null;
  /** ms from the start to the first streamed event (time to first token). */
  readonly firstEventMs: number | null;
  /** ms spent waiting on the target (engine or upstream); null if never dispatched. */
  readonly targetMs: number | null;
  /** ms spent in the admission queue (within targetMs), and its band; null if it never waited. */
  readonly queuedMs: number | null;
  readonly queuePriority: PriorityBand | null;

  /** The request's spans when tracing is on. */
  readonly trace: RequestTrace | null;

  /** ms since the request started. */
  elapsedMs(): number;
}
