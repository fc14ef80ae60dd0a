// The request body with the same byte cap and deadline as /v1/chat/completions, as a promise.
import { ApiError } from '../errors/api-error.ts';
import { type BodyLimits, readBody } from '../http/read-body.ts';
import type { RequestContext } from '../http/request-context.ts';

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
