// One log line per request: what an operator needs to trace it, never the key itself. With tracing
// on, trace_id and span_id (the request's span) join the line to its trace.
import { maskApiKeys } from '../auth/mask-api-keys.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { Logger } from './logger.ts';
import { finalStatus, OUTCOMES, outcomeIndex } from './request-outcome.ts';

export function logRequest(logger: Logger, ctx: RequestContext): void {
  const line: Record<string, unknown> = {
    reqId: ctx.requestId,
    method: ctx.method,
    path: maskApiKeys(ctx.path),
    route: ctx.route,
    clientAddress: ctx.clientAddress,
    status: finalStatus(ctx),
    outcome: OUTCOMES[outcomeIndex(ctx)],
    keyId: ctx.keyId,
    model: ctx.model === null ? null : maskApiKeys(ctx.model),
    stream: ctx.stream,
    promptTokens: ctx.promptTokens,
    completionTokens: ctx.completionTokens,
    durationMs: Math.round(ctx.elapsedMs() * 100) / 100,
    firstByteMs: ctx.firstByteMs,
    errorCode: ctx.errorCode,
    clientClosed: ctx.aborted,
  };
  const { trace } = ctx;
  if (trace !== null) {
    line.trace_id = trace.traceId;
    line.span_id = trace.spanId;
  }
  // A 503 from /readyz while starting or draining is the probe working, not a fault.
  if (ctx.status >= 500 && ctx.errorCode !== 'not_ready') logger.error(line, 'request');
  else logger.info(line, 'request');
}
