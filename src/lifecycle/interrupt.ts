// Ends a request still running at the drain deadline. A response not yet begun gets 503
// `shutting_down`; a stream gets that error as its last event, then [DONE]. Either way the
// connection closes, and the work behind the request stops as if the client had left.
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { sendError } from '../http/respond.ts';
import { DONE_FRAME, frame } from '../streaming/sse-writer.ts';

export function interrupt(ctx: RequestContext): void {
  if (ctx.aborted || ctx.finished) return;
  const error = new ApiError('shutting_down');
  if (ctx.status === 0) {
    sendError(ctx, error, { closeConnection: true });
  } else {
    ctx.errorCode = error.code;
    ctx.finished = true;
    // No closeConnection here: after a write, uWS would put its Connection header in the body.
    ctx.res.cork(() => ctx.res.end(frame(JSON.stringify(error)) + DONE_FRAME));
  }
  const onAbort = ctx.onAbort;
  ctx.onAbort = null;
  onAbort?.();
}
