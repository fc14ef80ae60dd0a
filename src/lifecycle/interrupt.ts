// Ends a request still running at the drain deadline. A response not yet begun gets 503
// `shutting_down`; a stream gets that error as its last event, then [DONE]. Either way the
// work behind the request stops as if the client had left.
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { endWithError } from '../http/respond.ts';

export function interrupt(ctx: RequestContext): void {
  if (ctx.aborted || ctx.finished) return;
  endWithError(ctx, new ApiError('shutting_down'), true);
  const onAbort = ctx.onAbort;
  ctx.onAbort = null;
  onAbort?.();
}
