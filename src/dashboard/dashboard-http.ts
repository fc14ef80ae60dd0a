// Responding to dashboard requests: every response carries the security headers (also errors),
// API answers are never cached, and request bodies are small JSON objects.
import { ApiError, toApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { readRequestBody } from '../http/read-request-body.ts';
import type { DashboardHeaders, RequestContext } from '../http/request-context.ts';
import { type Headers, send } from '../http/respond.ts';
import type { Handler } from '../http/router.ts';
import type { Logger } from '../observability/logger.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';

export const SECURITY_HEADERS: Headers = Object.freeze({
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
});

const API_HEADERS: Headers = Object.freeze({ ...SECURITY_HEADERS, 'cache-control': 'no-store' });
const MAX_BODY_BYTES = 16 * 1024;
const MAX_DEPTH = 4;

export interface DashboardRequest {
  readonly ctx: RequestContext;
  readonly headers: DashboardHeaders;
  /** The body as a JSON object of at most 16 KiB. */
  json(): Promise<Record<string, unknown>>;
}

export type DashboardHandler = (request: DashboardRequest) => Promise<void>;

/**
 * Wraps a handler so its errors, too, are answered with the dashboard's headers. A POST body is
 * read from the start: uWS drops body data that arrives before a reader is attached, and the
 * handler awaits the store before it looks at the body.
 */
export function dashboardRoute(logger: Logger, bodyTimeoutMs: number, handler: DashboardHandler): Handler {
  return async (ctx) => {
    try {
      if (ctx.dashboard === null) throw new Error(`dashboard route without dashboard headers: ${ctx.path}`);
      const bytes = ctx.method === 'POST' ? readRequestBody(ctx, { maxBodyBytes: MAX_BODY_BYTES, bodyTimeoutMs }) : null;
      bytes?.catch(() => {}); // a handler that refuses the request first never awaits it
      await handler({ ctx, headers: ctx.dashboard, json: () => parseObject(ctx, bytes) });
    } catch (error) {
      const apiError = toApiError(error);
      if (!(error instanceof ApiError)) logger.error({ err: error, reqId: ctx.requestId }, 'dashboard error');
      ctx.errorCode = apiError.code;
      send(ctx, apiError.status, JSON.stringify(apiError), { ...API_HEADERS, ...apiError.headers });
    }
  };
}

export function sendApiJson(ctx: RequestContext, value: unknown, extra?: Headers): void {
  send(ctx, 200, JSON.stringify(value), extra === undefined ? API_HEADERS : { ...API_HEADERS, ...extra });
}

async function parseObject(ctx: RequestContext, bytes: Promise<Uint8Array> | null): Promise<Record<string, unknown>> {
  if (bytes === null) throw new Error('only a POST has a body');
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const value = parseJsonBody(await bytes, { maxDepth: MAX_DEPTH });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('invalid_body');
  return value as Record<string, unknown>;
}
