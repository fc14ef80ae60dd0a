// The uWS front end: one catch-all handler that copies what it needs from the request, registers
// the abort handler before anything asynchronous, routes, and turns every failure into the
// error shape (or, once a stream has started, an SSE error event).
import { ApiError, toApiError } from '../errors/api-error.ts';
import type { Lifecycle } from '../lifecycle/lifecycle.ts';
import type { Logger } from '../observability/logger.ts';
import { logRequest } from '../observability/request-log.ts';
import { DONE_FRAME, frame } from '../streaming/sse-writer.ts';
import { repeatsContentLength } from './framing.ts';
import { RequestContext } from './request-context.ts';
import { sendError } from './respond.ts';
import type { Router } from './router.ts';
import { type TemplatedApp, type us_listen_socket, uws } from './uws.ts';

// Refused before (or without) reading the whole body: the connection cannot carry another request.
const CLOSES_CONNECTION = new Set(['request_too_large', 'request_timeout', 'malformed_request']);

export interface HttpServerOptions {
  readonly router: Router;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  /** For the one line per request (no redaction pass: its fields never hold a secret). */
  readonly requestLogger: Logger;
}

export class HttpServer {
  readonly #app: TemplatedApp;
  readonly #options: HttpServerOptions;
  #listenSocket: us_listen_socket | null = null;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.#app = uws.App();
    this.#app.any('/*', (res, req) => {
      const ctx = new RequestContext(res, req);
      this.#handle(ctx, ctx.contentLength !== '' && repeatsContentLength(req));
    });
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
        this.#listenSocket = socket;
        resolve(uws.us_socket_local_port(socket as never));
      });
    });
  }

  /** Stops accepting new connections; open connections keep being served. */
  stopListening(): void {
    if (this.#listenSocket) uws.us_listen_socket_close(this.#listenSocket);
    this.#listenSocket = null;
  }

  /** Closes every connection. */
  close(): void {
    this.stopListening();
    this.#app.close();
  }

  #handle(ctx: RequestContext, ambiguousFraming: boolean): void {
    ctx.res.onAborted(() => {
      ctx.aborted = true;
      const onAbort = ctx.onAbort;
      ctx.onAbort = null;
      onAbort?.();
    });
    const { router, lifecycle } = this.#options;
    lifecycle.enter();
    const route = router.match(ctx.path);
    const handler = route?.handler(ctx.method);
    let pending: void | Promise<void> = undefined;
    try {
      if (ambiguousFraming) {
        ctx.res.onData(() => {}); // uWS wants a reader for a request with a body
        throw new ApiError('malformed_request');
      }
      if (route === undefined) throw new ApiError('unknown_route', { message: `No endpoint ${ctx.method} ${ctx.path.slice(0, 200)}. API paths start with /v1.` });
      if (handler === undefined) {
        throw new ApiError('method_not_allowed', { message: `${ctx.path} does not accept ${ctx.method}.`, headers: { allow: route.allow } });
      }
      pending = handler(ctx);
    } catch (error) {
      this.#fail(ctx, error);
    }
    if (pending === undefined) this.#done(ctx);
    else pending.then(() => this.#done(ctx), (error: unknown) => { this.#fail(ctx, error); this.#done(ctx); });
  }

  #fail(ctx: RequestContext, error: unknown): void {
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error' && !(error instanceof ApiError)) {
      this.#options.logger.error({ err: error, reqId: ctx.requestId }, 'unhandled error');
    }
    if (ctx.aborted || ctx.finished) return;
    if (ctx.status === 0) {
      // A request whose body was refused unread cannot be kept alive.
      sendError(ctx, apiError, { closeConnection: CLOSES_CONNECTION.has(apiError.code) });
      return;
    }
    ctx.errorCode = apiError.code;
    ctx.finished = true;
    ctx.res.cork(() => ctx.res.end(frame(JSON.stringify(apiError)) + DONE_FRAME));
  }

  #done(ctx: RequestContext): void {
    if (!ctx.finished && !ctx.aborted) this.#fail(ctx, new Error('handler ended without a response'));
    this.#options.lifecycle.leave();
    logRequest(this.#options.requestLogger, ctx);
  }
}
