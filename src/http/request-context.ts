// Per-request state. uWS invalidates HttpRequest when the handler returns and HttpResponse when
// the request is aborted, so everything needed later is copied here synchronously.
import { randomBytes, randomFillSync } from 'node:crypto';
import type { PriorityBand } from '../config/config-types.ts';
import type { ApiError } from '../errors/api-error.ts';
import type { RequestTrace } from '../observability/request-trace.ts';
import type { RateLimitState } from '../ratelimit/limiter.ts';
import type { BodyBudget } from './body-budget.ts';
import type { BodyReader } from './body-reader.ts';
import { clientAddress } from './client-address.ts';
import { ambiguousFraming } from './framing.ts';
import { peerAddress } from './peer-address.ts';
import { readRequestHead } from './request-head.ts';
import { type RequestRecord, UNMATCHED_ROUTE } from '../observability/request-record.ts';
import type { HttpRequest, HttpResponse } from './uws.ts';

// Request ids: a random per-process prefix (it tells an operator which process served a request)
// and 8 random bytes. 1,024 ids are made at once, spelled into one buffer that holds the prefixes
// already, then read as one string that each id is a slice of: one small allocation per id, and
// only the one string for the 1,024 (a hex string, its slices and their join cost ~110 B an id).
// A counter would tell any client how many requests the process serves.
const ID_PREFIX = `req_${randomBytes(6).toString('hex')}`;
const ID_RANDOM_BYTES = 8;
const IDS_AT_ONCE = 1024;
const ID_LENGTH = ID_PREFIX.length + ID_RANDOM_BYTES * 2;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const idPool = Buffer.allocUnsafe(ID_RANDOM_BYTES * IDS_AT_ONCE);
const spelledIds = Buffer.alloc(ID_LENGTH * IDS_AT_ONCE);
for (let id = 0; id < IDS_AT_ONCE; id++) spelledIds.write(ID_PREFIX, id * ID_LENGTH, 'latin1');
let ids = '';
let nextId = IDS_AT_ONCE;

function newRequestId(): string {
  if (nextId === IDS_AT_ONCE) {
    randomFillSync(idPool);
    for (let id = 0; id < IDS_AT_ONCE; id++) {
      let at = id * ID_LENGTH + ID_PREFIX.length;
      for (let index = id * ID_RANDOM_BYTES; index < (id + 1) * ID_RANDOM_BYTES; index++) {
        const byte = idPool[index] as number;
        spelledIds[at++] = HEX_DIGITS[byte >> 4] as number;
        spelledIds[at++] = HEX_DIGITS[byte & 15] as number;
      }
    }
    ids = spelledIds.toString('latin1');
    nextId = 0;
  }
  const start = nextId++ * ID_LENGTH;
  return ids.slice(start, start + ID_LENGTH);
}

/** The path of the MCP endpoint, the only one that reads the headers below. */
export const MCP_PATH = '/mcp';

/** Headers the MCP Streamable HTTP transport needs; empty strings when absent. */
export interface McpHeaders {
  readonly accept: string;
  readonly origin: string;
  readonly host: string;
  readonly protocolVersion: string;
  readonly sessionId: string;
  readonly lastEventId: string;
}

/** Paths under this get the headers below (the dashboard's pages and its API). */
export const DASHBOARD_PATH = '/dashboard';

/** Headers the dashboard needs (sessions, CSRF checks, throttling, caching); empty strings when absent. */
export interface DashboardHeaders {
  readonly cookie: string;
  readonly origin: string;
  readonly host: string;
  readonly secFetchSite: string;
  readonly csrfToken: string;
  readonly ifNoneMatch: string;
  readonly forwardedFor: string;
  /** The TCP peer, as uWS gives it. */
  readonly remoteAddress: string;
}

/** Paths under this get the headers below: the Anthropic Messages API and the model list it reads. */
const ANTHROPIC_PATHS = '/v1/m';

export function isAnthropicPath(path: string): boolean {
  return path.startsWith(ANTHROPIC_PATHS);
}

/** GETs under this read their query string. */
const QUERY_PATHS = '/v1/responses/';
const ADMIN_PATHS = '/v1/admin/';

export function readsDashboardHeaders(path: string): boolean {
  return path.startsWith(DASHBOARD_PATH) || path.startsWith(ADMIN_PATHS);
}

/** Headers Anthropic's clients send; empty strings when absent. */
export interface AnthropicHeaders {
  /** The key, as Anthropic's SDKs send it when not as a bearer token. */
  readonly apiKey: string;
  readonly version: string;
  /** anthropic-beta: passed on to an upstream that speaks the Messages API. */
  readonly beta: string;
}

/** An endpoint's own shape for error bodies; the API's (`{error:{message,type,param,code}}`) when none is set. */
export type ErrorFormat = (error: ApiError, requestId: string) => string;

/**
 * The response cache's record of a request's reply, on a miss it will keep (cache/cache-fill.ts
 * implements it): a stream's events as written (streaming/recording-sink.ts), then how it ended.
 */
export interface ReplyRecorder {
  record(events: string | Uint8Array): void;
  streamEnded(): void;
  finishJson(reply: Uint8Array | string): void;
  finishStream(end: { readonly aborted: boolean; readonly errorCode: string | null }): void;
  abandon(): void;
}

/** How a stream of another protocol ends when it fails after it opened (streaming/stream-translator.ts implements it). */
export interface StreamEnding {
  /** The events that end the stream, in its protocol's shape. */
  failed(error: ApiError): string;
}

/** What work on behalf of a client needs to know about it going away. */
export interface Abortable {
  readonly requestId: string;
  readonly aborted: boolean;
  /** Called once if the client goes away; the current owner of the work sets it. */
  onAbort: (() => void) | null;
  /** The request's spans when tracing is on; absent or null otherwise. */
  readonly trace?: RequestTrace | null;
  /** ms spent in the admission queue, and the band it waited in; set when it leaves the queue. */
  queuedMs?: number | null;
  queuePriority?: PriorityBand | null;
  /** The client's x-munja-session header, naming its conversation for prefix affinity; '' or absent: none. */
  readonly session?: string;
}

/** How a request whose handler returned ENDS_LATER tells the server it is over. */
export interface RequestEnding {
  /** Answered (or the client left), or failed with `error` still to be answered. */
  end(ctx: RequestContext, error: unknown): void;
}

/**
 * A route uWS matched by its method and exact path, so that its requests need not read either:
 * each read makes a string. Its requests are expected to carry a body.
 */
export interface MatchedRoute {
  readonly method: string;
  readonly path: string;
  /** isAnthropicPath(path), worked out once. */
  readonly anthropic: boolean;
  /** readsDashboardHeaders(path), worked out once. */
  readonly dashboardHeaders: boolean;
}

/** What the server tells every request about itself. */
export interface ServerSettings {
  /** A stream whose client reads nothing for this long is closed (SseWriter). */
  readonly writeStallMs: number;
  /** Take the client address from X-Forwarded-For (server.trustProxy). */
  readonly trustProxy: boolean;
  /** The process-wide ceiling on buffered body bytes. */
  readonly bodyBudget: BodyBudget;
  readonly ending: RequestEnding;
}

export class RequestContext implements Abortable, RequestRecord {
  readonly res: HttpResponse;
  readonly requestId: string;
  readonly startedAt: number;
  readonly method: string;
  readonly path: string;
  readonly authorization: string;
  readonly contentType: string;
  readonly contentLength: string;
  /** The x-munja-cache header ('' without one): the response cache's per-request switch. */
  readonly cacheHeader: string;
  /** The x-munja-session header ('' without one): the conversation, for prefix affinity. */
  readonly session: string;
  /** The response cache's record of this request's reply, on a miss it will store; null otherwise. */
  cacheFill: ReplyRecorder | null = null;
  /** The x-munja-cache answer header of a request the cache missed or bypassed, for an error answer too; null otherwise. */
  cacheStatus: Readonly<Record<string, string>> | null = null;
  /** The request carries a body (a non-zero Content-Length, or Transfer-Encoding). */
  readonly hasBody: boolean;
  /** Where the body ends is ambiguous (framing.ts): the request is refused. */
  readonly ambiguousFraming: boolean;
  /** The TCP peer, or the proxy's X-Forwarded-For entry when server.trustProxy says so. */
  readonly clientAddress: string;
  /** Reads the body; set by the handler that accepts one, before anything asynchronous. */
  body: BodyReader | null = null;
  /** Copied for MCP_PATH only: six more header lookups would cost every other request ~0.4 µs. */
  readonly mcp: McpHeaders | null;
  /**
   * Copied under DASHBOARD_PATH only, for the same reason, and under /v1/admin/, which tells a
   * request that brings a dashboard session instead of an admin key why it is refused.
   */
  readonly dashboard: DashboardHeaders | null;
  /** The query string (without `?`) of a GET under /v1/responses/ (input_items pages), or a GET or DELETE under /v1/admin/; '' otherwise: reading it costs every GET a string. */
  readonly query: string;
  /** Copied for /v1/messages… and /v1/models… only; with anthropic-version, responses also carry `request-id`. */
  readonly anthropic: AnthropicHeaders | null;
  /** Set by an endpoint whose errors have another shape (the Messages API). */
  errorFormat: ErrorFormat | null = null;
  /** Set for a stream of another protocol: the events it ends with when it fails (endWithError). */
  streamEnding: StreamEnding | null = null;
  aborted = false;
  /** Status sent (0 until the response has started). */
  status = 0;
  /** Called once if the client goes away before the response ends. */
  onAbort: (() => void) | null = null;
  /** Set when the request has been answered in full. */
  finished = false;
  /** The matched route's name (http/router.ts): a bounded label, unlike the path. */
  route = UNMATCHED_ROUTE;
  // Fields for the request log line.
  keyId: string | null = null;
  model: string | null = null;
  stream = false;
  promptTokens = 0;
  completionTokens = 0;
  /** What the completion cost, in micro-units of the budgets' currency (0: unpriced). */
  cost = 0;
  errorCode: string | null = null;
  firstByteMs: number | null = null;
  // Fields for the metrics (observability/metrics.ts), in ms since startedAt.
  /** The first streamed event (time to first token); set by SseWriter. */
  firstEventMs: number | null = null;
  queuedMs: number | null = null;
  queuePriority: PriorityBand | null = null;
  /** Spent waiting on the target (engine or upstream: dispatch until its outcome); null if never dispatched. */
  targetMs: number | null = null;
  /** An SSE response was opened: counted in the open-streams gauge until the request is done. */
  streamOpened = false;
  /** Set while the instance drains: the response asks the client to reconnect (Connection: close). */
  closeConnection = false;
  /** The per-address slot this request holds (http/address-slots.ts); null when it holds none. */
  addressSlot: string | null = null;
  /** Where the lifecycle's in-flight list holds this request (lifecycle/in-flight-requests.ts). */
  inFlightSlot = -1;
  /** The request's spans; null while tracing is off (nothing is traced, nothing allocated). */
  trace: RequestTrace | null = null;
  /** The rate limits that admitted the request: its response carries them as x-ratelimit-* headers. */
  rateLimits: RateLimitState | null = null;
  readonly #server: ServerSettings;
  #ended = false;

  constructor(res: HttpResponse, req: HttpRequest, server: ServerSettings, matched: MatchedRoute | null = null) {
    const { trustProxy } = server;
    this.res = res;
    this.#server = server;
    this.requestId = newRequestId();
    this.startedAt = performance.now();
    this.method = matched === null ? req.getCaseSensitiveMethod() : matched.method;
    this.path = matched === null ? req.getUrl() : matched.path;
    const head = readRequestHead(req, matched !== null, trustProxy);
    this.authorization = head.authorization;
    this.contentType = head.contentType;
    this.contentLength = head.contentLength;
    this.cacheHeader = head.cache;
    this.session = head.session;
    this.hasBody = head.contentLength === '' ? head.transferEncoding !== '' : head.contentLength !== '0';
    this.ambiguousFraming = ambiguousFraming(head);
    const peer = peerAddress(res);
    const { forwardedFor } = head;
    this.clientAddress = clientAddress(peer, forwardedFor, trustProxy);
    this.mcp = this.path === MCP_PATH ? copyMcpHeaders(req) : null;
    const dashboardHeaders = matched === null ? readsDashboardHeaders(this.path) : matched.dashboardHeaders;
    this.dashboard = dashboardHeaders ? copyDashboardHeaders(req, peer, forwardedFor) : null;
    this.anthropic = (matched === null ? isAnthropicPath(this.path) : matched.anthropic) ? copyAnthropicHeaders(req) : null;
    this.query = matched === null && ((this.method === 'GET' && (this.path.startsWith(QUERY_PATHS) || this.path.startsWith(ADMIN_PATHS))) || (this.method === 'DELETE' && this.path.startsWith(ADMIN_PATHS))) ? req.getQuery() ?? '' : '';
  }

  /**
   * Ends a request whose handler returned ENDS_LATER: once it is answered (no argument), or with the
   * error to answer. Only the first call counts.
   */
  end(error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#server.ending.end(this, error);
  }

  // Read through the server's settings: a field of their own would cost every request 8 bytes each.
  get bodyBudget(): BodyBudget {
    return this.#server.bodyBudget;
  }

  /** A stream whose client reads nothing for this long is closed (SseWriter). */
  get writeStallMs(): number {
    return this.#server.writeStallMs;
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }
}

function copyMcpHeaders(req: HttpRequest): McpHeaders {
  return {
    accept: req.getHeader('accept'),
    origin: req.getHeader('origin'),
    host: req.getHeader('host'),
    protocolVersion: req.getHeader('mcp-protocol-version'),
    sessionId: req.getHeader('mcp-session-id'),
    lastEventId: req.getHeader('last-event-id'),
  };
}

function copyAnthropicHeaders(req: HttpRequest): AnthropicHeaders {
  return { apiKey: req.getHeader('x-api-key'), version: req.getHeader('anthropic-version'), beta: req.getHeader('anthropic-beta') };
}

function copyDashboardHeaders(req: HttpRequest, remoteAddress: string, forwardedFor: string): DashboardHeaders {
  return {
    cookie: req.getHeader('cookie'),
    origin: req.getHeader('origin'),
    host: req.getHeader('host'),
    secFetchSite: req.getHeader('sec-fetch-site'),
    csrfToken: req.getHeader('x-csrf-token'),
    ifNoneMatch: req.getHeader('if-none-match'),
    forwardedFor,
    remoteAddress,
  };
}
