// /health: the process answers (liveness). /readyz: it should get traffic (not starting or draining).
import { ApiError } from '../errors/api-error.ts';
import { send, sendError } from '../http/respond.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { Lifecycle } from '../lifecycle/lifecycle.ts';

const HEALTHY = '{"status":"ok"}';
const READY = '{"status":"ready"}';

export function health(ctx: RequestContext): void {
  send(ctx, 200, HEALTHY);
}

export function readiness(lifecycle: Lifecycle, ctx: RequestContext): void {
  if (lifecycle.ready) {
    send(ctx, 200, READY);
    return;
  }
  const error = new ApiError('not_ready', { message: `The service is ${lifecycle.phase}.` });
  sendError(ctx, error);
}
