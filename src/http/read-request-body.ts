// A request body under the byte cap and deadline, as a promise of its bytes or an ApiError (413, 408).
import { ApiError } from '../errors/api-error.ts';
import { type BodyLimits, readBody } from './read-body.ts';
import type { RequestContext } from './request-context.ts';

export function readRequestBody(ctx: RequestContext, limits: BodyLimits): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    let read = false;
    const stopReading = readBody(ctx, limits, (outcome) => {
      read = true;
      ctx.onAbort = null;
      if (outcome.ok) resolve(outcome.body);
      else if (outcome.reason === 'timed_out') reject(new ApiError('request_timeout'));
      else reject(new ApiError('request_too_large', { message: `The request body is larger than the ${limits.maxBytes} bytes this service accepts.` }));
    });
    if (read) return;
    ctx.onAbort = () => {
      stopReading();
      reject(new Error('client closed the request while sending the body'));
    };
  });
}
