// A request body under the byte cap and deadline, read at once: for handlers that need no key first
// (the dashboard's forms). Resolves with its bytes or rejects with an ApiError (413, 408, 503).
import { type BodyLimits, BodyReader } from './body-reader.ts';
import type { RequestContext } from './request-context.ts';

export function readRequestBody(ctx: RequestContext, limits: BodyLimits): Promise<Uint8Array> {
  return new BodyReader(ctx, limits).read();
}
