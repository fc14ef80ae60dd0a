// Per-request state. uWS invalidates HttpRequest when the handler returns and HttpResponse when
// the request is aborted, so everything needed later is copied here synchronously.
import { randomBytes } from 'node:crypto';
import type { RequestTrace } from '../observability/request-trace.ts';
import { UNMATCHED_ROUTE } from './router.ts';
import type { HttpRequest, HttpResponse } from './uws.ts';

// Request ids: a random per-process prefix plus a counter is unique and costs no syscall.
const ID_PREFIX = `req_${randomBytes(6).toString('hex')}`;
let idCounter = 0;

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

/** What work on behalf of a client needs to know about it going away. */
export interface Abortable {
  readonly requestId: string;
  readonly aborted: boolean;
  /** Called once if the client goes away; the current owner of the work sets it. */
  onAbort: (() => void) | null;
  /** The request's spans when tracing is on; absent or null otherwise. */
  readonly trace?: RequestTrace | null;
}

export class RequestContext implements Abortable {
  readonly res: HttpResponse;
  readonly requestId: string;
  readonly startedAt: number;
  readonly method: string;
  readonly path: string;
  readonly authorization: string;
  readonly contentType: string;
  readonly contentLength: string;
  /** A stream whose client reads nothing for this long is closed (SseWriter). */
  readonly writeStallMs: number;
  /** Copied for MCP_PATH only: six more header lookups would cost every other request ~0.4 µs. */
  readonly mcp: McpHeaders | null;
  /** Copied under DASHBOARD_PATH only, for the same reason. */
  readonly dashboard: DashboardHeaders | null;
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
  errorCode: string | null = null;
  firstByteMs: number | null = null;
  // Fields for the metrics (observability/metrics.ts), in ms since startedAt.
  /** The first streamed event (time to first token); set by SseWriter. */
  firstEventMs: number | null = null;
  /** Spent waiting on the target (engine or upstream: dispatch until its outcome); null if never dispatched. */
  targetMs: number | null = null;
  /** An SSE response was opened: counted in the open-streams gauge until the request is done. */
  streamOpened = false;
  /** Set while the instance drains: the response asks the client to reconnect (Connection: close). */
  closeConnection = false;
  /** Where the lifecycle's in-flight list holds this request (lifecycle/in-flight-requests.ts). */
  inFlightSlot = -1;
  /** The request's spans; null while tracing is off (nothing is traced, nothing allocated). */
  trace: RequestTrace | null = null;

  constructor(res: HttpResponse, req: HttpRequest, writeStallMs: number) {
    this.res = res;
    this.writeStallMs = writeStallMs;
    this.requestId = `${ID_PREFIX}${(idCounter++).toString(36)}`;
    this.startedAt = performance.now();
    this.method = req.getCaseSensitiveMethod();
    this.path = req.getUrl();
    this.authorization = req.getHeader('authorization');
    this.contentType = req.getHeader('content-type');
    this.contentLength = req.getHeader('content-length');
    this.mcp = this.path === MCP_PATH ? copyMcpHeaders(req) : null;
    this.dashboard = this.path.startsWith(DASHBOARD_PATH) ? copyDashboardHeaders(res, req) : null;
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

function copyDashboardHeaders(res: HttpResponse, req: HttpRequest): DashboardHeaders {
  return {
    cookie: req.getHeader('cookie'),
    origin: req.getHeader('origin'),
    host: req.getHeader('host'),
    secFetchSite: req.getHeader('sec-fetch-site'),
    csrfToken: req.getHeader('x-csrf-token'),
    ifNoneMatch: req.getHeader('if-none-match'),
    forwardedFor: req.getHeader('x-forwarded-for'),
    remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
  };
}
