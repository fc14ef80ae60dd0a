// Writing responses. Every write outside the synchronous part of a uWS handler must be corked,
// and nothing may be written after the client aborted.
import { ApiError } from '../errors/api-error.ts';
import { writeHeaderLines } from './header-lines.ts';
import { errorEvents } from './sse-frames.ts';
import type { RequestContext } from './request-context.ts';
import { statusLine } from './status-lines.ts';

export type Headers = Readonly<Record<string, string>>;

const JSON_TYPE = 'application/json';

function writeHead(ctx: RequestContext, status: number, contentType: string, headers: Headers | undefined): void {
  ctx.status = status;
  ctx.res.writeStatus(statusLine(status));
  writeHeaderLines(ctx.res, contentType, ctx.requestId, ctx.rateLimits, headers, ctx.anthropic !== null && ctx.anthropic.version !== '');
}

const NO_OPTIONS: { contentType?: string; closeConnection?: boolean } = {};

/** Sends a complete response. Returns false if the client had already gone away. */
export function send(
  ctx: RequestContext,
  status: number,
  body: string | Uint8Array,
  headers?: Headers,
  options: { contentType?: string; closeConnection?: boolean } = NO_OPTIONS,
): boolean {
  if (ctx.aborted || ctx.finished) return false;
  ctx.finished = true;
  pending.ctx = ctx;
  pending.status = status;
  pending.body = body;
  pending.headers = headers;
  pending.contentType = options.contentType ?? JSON_TYPE;
  pending.closeConnection = (options.closeConnection ?? false) || ctx.closeConnection;
  try {
    ctx.res.cork(writeResponse);
  } finally {
    pending.ctx = null;
    pending.body = '';
    pending.headers = undefined;
  }
  return true;
}

// What send() hands to its corked write. uWS runs the write before cork() returns, so one set of
// fields serves every response, and no closure is made per response.
const pending: { ctx: RequestContext | null; status: number; body: string | Uint8Array; headers: Headers | undefined; contentType: string; closeConnection: boolean } = {
  ctx: null, status: 0, body: '', headers: undefined, contentType: JSON_TYPE, closeConnection: false,
};

function writeResponse(): void {
  const { ctx, body } = pending;
  if (ctx === null) return;
  writeHead(ctx, pending.status, pending.contentType, pending.headers);
  if (ctx.method === 'HEAD') ctx.res.endWithoutBody(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  else ctx.res.end(body, pending.closeConnection);
}

export function sendError(ctx: RequestContext, error: ApiError, options: { closeConnection?: boolean } = {}): boolean {
  ctx.errorCode = error.code;
  // A request the cache looked at says so on its error too (an error is never kept).
  const headers = ctx.cacheStatus === null ? error.headers : { ...error.headers, ...ctx.cacheStatus };
  return send(ctx, error.status, errorBody(ctx, error), headers, options);
}

/** The error in the shape of the request's endpoint. */
export function errorBody(ctx: RequestContext, error: ApiError): string {
  return ctx.errorFormat === null ? JSON.stringify(error) : ctx.errorFormat(error, ctx.requestId);
}

/**
 * Refuses a request and closes its connection. While the client is still sending the body, the
 * refusal is written chunked, without its end, and the body reader lingers (see body-reader.ts);
 * otherwise it is an ordinary response with `Connection: close`.
 */
export function sendRefusal(ctx: RequestContext, error: ApiError): boolean {
  const body = ctx.body;
  if (body === null || !body.unread) return sendError(ctx, error, { closeConnection: true });
  if (ctx.aborted || ctx.finished) return false;
  ctx.errorCode = error.code;
  ctx.finished = true;
  // First: it resumes a paused socket, which must not have unsent data when it resumes (uWS's
  // pause/resume restores the poll events saved for the amount of data buffered at the time).
  body.lingerThenClose();
  ctx.res.cork(() => {
    writeHead(ctx, error.status, JSON_TYPE, error.headers);
    ctx.res.writeHeader('connection', 'close');
    ctx.res.write(errorBody(ctx, error));
  });
  return true;
}

/** Starts a response whose body follows in pieces (SSE). The caller must cork later writes. */
export function beginStreaming(ctx: RequestContext, contentType: string, headers: Headers): void {
  writeHead(ctx, 200, contentType, headers);
  // end(…, true) cannot add it once a stream has begun (uWS would write it into the body).
  if (ctx.closeConnection) ctx.res.writeHeader('connection', 'close');
}

/**
 * Ends a request with an error: as a JSON answer if nothing was sent yet (closing the connection
 * if asked), else as the stream's last events (its protocol's, when it has its own). The
 * connection of a stream is not closed here: after a write, uWS would put its Connection header
 * into the body.
 */
export function endWithError(ctx: RequestContext, error: ApiError, closeConnection: boolean): void {
  if (ctx.aborted || ctx.finished) return;
  if (ctx.status === 0) {
    sendError(ctx, error, { closeConnection });
    return;
  }
  ctx.errorCode = error.code;
  ctx.finished = true;
  const events = ctx.streamEnding === null ? errorEvents(error) : ctx.streamEnding.failed(error);
  ctx.res.cork(() => ctx.res.end(events));
}
