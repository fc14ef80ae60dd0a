// /health: the process answers (liveness). /readyz: it should get traffic (not starting or
// draining). A lost Redis is reported but keeps the instance ready: it goes on serving cached keys
// and the local share of each limit, and taking every instance out of rotation at once would turn
// a Redis outage into a full one.
import { ApiError } from '../errors/api-error.ts';
import { send, sendError } from '../http/respond.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { Lifecycle } from '../lifecycle/lifecycle.ts';
import type { RedisStatus } from '../lifecycle/redis-status.ts';

const HEALTHY = '{"status":"ok"}';
const READY = '{"status":"ready"}';
const READY_REDIS_UP = '{"status":"ready","redis":"up"}';
const READY_REDIS_DOWN = '{"status":"ready","redis":"down"}';

export function health(ctx: RequestContext): void {
  send(ctx, 200, HEALTHY);
}

export function readiness(lifecycle: Lifecycle, redis: RedisStatus | null, ctx: RequestContext): void {
  if (lifecycle.ready) {
    send(ctx, 200, redis === null ? READY : redis.state === 'up' ? READY_REDIS_UP : READY_REDIS_DOWN);
    return;
  }
  const error = new ApiError('not_ready', { message: `The service is ${lifecycle.phase}.` });
  sendError(ctx, error);
}
