// One log line per request: what an operator needs to trace it, never the key itself.
import { maskApiKeys } from '../auth/mask-api-keys.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { Logger } from './logger.ts';

export function logRequest(logger: Logger, ctx: RequestContext): void {
  const line = {
    reqId: ctx.requestId,
    method: ctx.method,
    path: maskApiKeys(ctx.path),
    clientAddress: ctx.clientAddress,
    status: ctx.aborted && !ctx.finished ? 499 : ctx.status,
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
  if (ctx.status >= 500) logger.error(line, 'request');
  else logger.info(line, 'request');
}
