// The uWS front end: one catch-all handler that copies what it needs from the request, registers
// the abort handler before anything asynchronous, routes, and turns every failure into the
// error shape (or, once a stream has started, an SSE error event).
import type { TlsConfig } from '../config/config-types.ts';
import { DEFAULT_SERVER } from '../config/default-config.ts';
import { checkTlsFiles } from '../config/tls-config.ts';
import { ApiError, toApiError } from '../errors/api-error.ts';
import type { Lifecycle } from '../lifecycle/lifecycle.ts';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { RequestLog } from '../observability/request-log.ts';
import type { Tracing } from '../observability/tracing.ts';
import { AddressSlots } from './address-slots.ts';
import { BodyBudget } from './body-budget.ts';
import { BodyReader, ClientGoneError } from './body-reader.ts';
import { isAnthropicPath, type MatchedRoute, readsDashboardHeaders, RequestContext, type ServerSettings } from './request-context.ts';
import { endWithError, sendRefusal } from './respond.ts';
import { openStreams } from '../observability/open-streams.ts';
import { ENDS_LATER, type HandlerResult, type Router } from './router.ts';
import { type TemplatedApp, type us_listen_socket, uws } from './uws.ts';

// Refused before (or without) reading the whole body: the connection cannot carry another request.
const CLOSES_CONNECTION = new Set(['request_too_large', 'request_timeout', 'malformed_request']);

export interface HttpServerOptions {
  readonly router: Router;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  /** Writes the one line per request. */
  readonly requestLog: RequestLog;
  /** Serve HTTPS only (uWS SSLApp); null or absent: plain HTTP. */
  readonly tls?: TlsConfig | null;
  /** Observes every finished request (GET /metrics); null or absent: metrics are off. */
  readonly metrics?: GatewayMetrics | null;
  /** Traces every request (OpenTelemetry); null or absent: tracing is off. */
  readonly tracing?: Tracing | null;
  /** Requests in flight beyond which new ones are shed with 503 `overloaded` (probes excepted). */
  readonly maxInFlight?: number;
  /** A stream whose client reads nothing for this long is closed and the work behind it stopped. */
  readonly streamWriteStallMs?: number;
  /** Request body bytes held at once in this process; past it a request gets 503 `overloaded`. */
  readonly maxBufferedBodyBytes?: number;
  /** Requests open at once per client address; past it a new one gets 429 `too_many_open_requests`. */
  readonly maxRequestsPerAddress?: number;
  /** Take the client address from the last X-Forwarded-For entry. */
  readonly trustProxy?: boolean;
}

// Probes must answer under a flood: a shed /health would get a healthy instance restarted.
const PROBE_PATHS = new Set(['/health', '/readyz']);
const RETRY_SOON = { 'retry-after': '1' };

/**
 * A request whose body boundary is ambiguous is refused on the next turn of the event loop, not at
 * once: uWS parses a whole packet in one go, and an answer given during that parse (or in a
 * microtask, which runs between its callbacks) lets it go on to run whatever follows in the packet
 * as the next request — the smuggled one. Unanswered, the request makes uWS close the connection
 * when a next one arrives behind it (it refuses to pipeline past an open response), so the smuggled
 * request never runs; with nothing behind it, the 400 goes out and the connection closes.
 */
function refuseOnNextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    throw new ApiError('malformed_request');
  });
}

/** uWS's onAborted handler, bound to its request. */
function clientLeft(this: RequestContext): void {
  this.aborted = true;
  this.body?.abort();
  const onAbort = this.onAbort;
  this.onAbort = null;
  onAbort?.();
}

export class HttpServer {
  #app: TemplatedApp;
  /** Apps replaced by a certificate reload: no longer listening, still serving their connections. */
  readonly #retired: TemplatedApp[] = [];
  readonly #options: HttpServerOptions;
  readonly #settings: ServerSettings;
  readonly #addresses: AddressSlots;
  #listenSocket: us_listen_socket | null = null;
  #host = '';
  #port = 0;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.#settings = {
      writeStallMs: options.streamWriteStallMs ?? DEFAULT_SERVER.streamWriteStallMs,
      trustProxy: options.trustProxy ?? false,
      bodyBudget: new BodyBudget(options.maxBufferedBodyBytes ?? Number.POSITIVE_INFINITY),
      ending: { end: (ctx, error) => this.#end(ctx, error) },
    };
    this.#addresses = new AddressSlots(options.maxRequestsPerAddress ?? Number.POSITIVE_INFINITY);
    this.#app = this.#createApp();
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
        this.#listenSocket = socket;
        this.#host = host;
        this.#port = uws.us_socket_local_port(socket as never);
        // A port the kernel picked (port 0) cannot be shared through SO_REUSEPORT, which a TLS
        // reload and the other cluster workers need: bind it again by number at once.
        if (port === 0) {
          uws.us_listen_socket_close(socket);
          this.#listenSocket = null;
          this.#app.listen(host, this.#port, (again) => {
            if (!again) return reject(new Error(`cannot listen on ${host}:${this.#port}`));
            this.#listenSocket = again;
            resolve(this.#port);
          });
          return;
        }
        resolve(this.#port);
      });
    });
  }

  /**
   * Re-reads the certificate and key: a new SSLApp listens on the same port (SO_REUSEPORT), then
   * the old listen socket closes; the old app keeps serving the connections it has. Throws (and
   * changes nothing) when the files are unusable or the port cannot be shared.
   */
  reloadTls(): void {
    const tls = this.#options.tls;
    if (!tls) throw new Error('TLS is not enabled');
    if (this.#listenSocket === null) throw new Error('not listening');
    checkTlsFiles(tls);
    const app = this.#createApp();
    let socket = false as us_listen_socket | false; // uWS calls back synchronously
    app.listen(this.#host, this.#port, (listenSocket) => { socket = listenSocket; });
    if (!socket) {
      app.close();
      throw new Error(`cannot listen again on ${this.#host}:${this.#port} with the new certificate`);
    }
    uws.us_listen_socket_close(this.#listenSocket);
    this.#retired.push(this.#app);
    this.#app = app;
    this.#listenSocket = socket;
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
    for (const app of this.#retired.splice(0)) app.close();
  }

  #createApp(): TemplatedApp {
    const { tls } = this.#options;
    const app = tls
      ? uws.SSLApp({ cert_file_name: tls.certFile, key_file_name: tls.keyFile, ...(tls.passphrase === null ? {} : { passphrase: tls.passphrase }) })
      : uws.App();
    const tracing = this.#options.tracing ?? null;
    app.any('/*', (res, req) => {
      const ctx = new RequestContext(res, req, this.#settings);
      if (tracing !== null) ctx.trace = tracing.begin(ctx, req);
      this.#handle(ctx);
    });
    // uWS matches these by the exact method (case and all) and path, query string aside, as the
    // router would; anything else falls through to the catch-all, which answers 404 or 405.
    for (const path of this.#options.router.exactPaths('POST')) {
      const matched: MatchedRoute = { method: 'POST', path, anthropic: isAnthropicPath(path), dashboardHeaders: readsDashboardHeaders(path) };
      app.post(path, (res, req) => {
        const ctx = new RequestContext(res, req, this.#settings, matched);
        if (tracing !== null) ctx.trace = tracing.begin(ctx, req);
        this.#handle(ctx);
      });
    }
    return app;
  }

  #handle(ctx: RequestContext): void {
    // Bound rather than a closure: with no closure here, this frame needs no context either.
    ctx.res.onAborted(clientLeft.bind(ctx));
    const { router, lifecycle } = this.#options;
    lifecycle.enter(ctx);
    const route = router.match(ctx.path);
    if (route !== undefined) ctx.route = route.name;
    const handler = route?.handler(ctx.method);
    let pending: HandlerResult | Promise<HandlerResult> = undefined;
    try {
      const probe = PROBE_PATHS.has(ctx.path);
      if (!probe && lifecycle.inFlight > (this.#options.maxInFlight ?? Infinity)) {
        this.#refuseAtOnce(ctx, new ApiError('overloaded', { headers: RETRY_SOON }));
        return;
      }
      if (!probe) {
        ctx.addressSlot = this.#addresses.enter(ctx.clientAddress);
        if (ctx.addressSlot === null) {
          this.#refuseAtOnce(ctx, new ApiError('too_many_open_requests', { headers: RETRY_SOON }));
          return;
        }
      }
      if (ctx.ambiguousFraming) {
        ctx.res.onData(() => {}); // uWS wants a reader for a request with a body
        pending = refuseOnNextTurn();
      } else {
        if (route === undefined || handler === undefined) ctx.errorFormat = router.errorFormatOf(ctx.path);
        if (route === undefined) throw new ApiError('unknown_route', { message: unknownRouteMessage(this.#options.router, ctx) });
        if (handler === undefined) {
          throw new ApiError('method_not_allowed', { message: `${ctx.path} does not accept ${ctx.method}.`, headers: { allow: route.allow } });
        }
        pending = handler(ctx);
      }
    } catch (error) {
      this.#fail(ctx, error);
    }
    if (pending === undefined) this.#done(ctx);
    else if (pending !== ENDS_LATER) this.#settle(ctx, pending);
  }

  #settle(ctx: RequestContext, pending: Promise<HandlerResult>): void {
    pending.then((result) => { if (result !== ENDS_LATER) this.#done(ctx); }, (error: unknown) => this.#end(ctx, error));
  }

  #end(ctx: RequestContext, error: unknown): void {
    if (error !== undefined) this.#fail(ctx, error);
    this.#done(ctx);
  }

  /** Sheds a request before any work, and closes: the client should back off. */
  #refuseAtOnce(ctx: RequestContext, error: ApiError): void {
    if (ctx.hasBody) BodyReader.toDiscard(ctx);
    sendRefusal(ctx, error);
    this.#done(ctx);
  }

  #fail(ctx: RequestContext, error: unknown): void {
    if (error instanceof ClientGoneError) {
      // An ordinary event on the internet (a client that gave up), not a fault of the service.
      ctx.errorCode = error.code;
      this.#options.logger.debug({ reqId: ctx.requestId, clientAddress: ctx.clientAddress }, 'client left before the answer');
      return;
    }
    const apiError = toApiError(error);
    if (apiError.code === 'internal_error' && !(error instanceof ApiError)) {
      this.#options.logger.error({ err: error, reqId: ctx.requestId }, 'unhandled error');
    }
    // Refused while the client is still sending its body: answered so that the client sees it.
    if (ctx.body?.unread === true && ctx.status === 0 && apiError.code !== 'request_timeout') {
      sendRefusal(ctx, apiError);
      return;
    }
    // A request whose body was refused unread cannot be kept alive.
    endWithError(ctx, apiError, CLOSES_CONNECTION.has(apiError.code));
  }

  #done(ctx: RequestContext): void {
    if (!ctx.finished && !ctx.aborted) this.#fail(ctx, new Error('handler ended without a response'));
    ctx.body?.release();
    if (ctx.addressSlot !== null) this.#addresses.leave(ctx.addressSlot);
    this.#options.lifecycle.leave(ctx);
    if (ctx.streamOpened) openStreams.count -= 1;
    this.#options.metrics?.observe(ctx);
    ctx.trace?.finish(ctx);
    this.#options.requestLog.write(ctx);
  }
}

function unknownRouteMessage(router: Router, ctx: RequestContext): string {
  const path = ctx.path.slice(0, 200);
  const meant = router.suggest(ctx.path);
  if (meant === undefined) return `No endpoint ${ctx.method} ${path}. API paths start with /v1 (a client's base URL is http://host:port/v1).`;
  return `No endpoint ${ctx.method} ${path}. Did you mean ${meant.slice(0, 200)}? (A client's base URL ends in /v1, once.)`;
}
