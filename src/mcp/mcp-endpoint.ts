// POST /mcp: Origin → key → body (same cap as /v1) → JSON → each message counted against the key's
// rate → a fresh stateless MCP server and transport → its response bridged back to uWS. The key
// comes first: a request without a valid one is refused before its body is read. Refusals before the transport use the API's error
// shape; what the transport itself refuses (Accept, MCP-Protocol-Version, JSON-RPC) is answered
// by the SDK, as the MCP transport spec describes. OPTIONS /mcp answers CORS preflights.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config } from '../config/config-types.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import type { McpHeaders, RequestContext } from '../http/request-context.ts';
import { type Headers, send } from '../http/respond.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';
import { createMcpServer, type McpCaller, type McpToolDeps } from './mcp-server.ts';
import type { OriginPolicy } from './origin-policy.ts';
import { BodyReader } from '../http/body-reader.ts';
import { countMcpMessages } from './count-messages.ts';
import { toWebRequest, writeWebResponse } from './web-bridge.ts';

export interface McpDeps extends McpToolDeps {
  readonly config: Config;
  readonly auth: Authenticator;
  readonly origins: OriginPolicy;
}

const NO_MCP_HEADERS: McpHeaders = { accept: '', origin: '', host: '', protocolVersion: '', sessionId: '', lastEventId: '' };
const WWW_AUTHENTICATE = { 'www-authenticate': 'Bearer realm="munja"' };

export async function mcpPost(deps: McpDeps, ctx: RequestContext): Promise<void> {
  const { maxJsonDepth } = deps.config;
  const reader = new BodyReader(ctx, deps.config);
  const mcp = ctx.mcp ?? NO_MCP_HEADERS;
  const cors = deps.origins.check(mcp.origin);
  let principal: Principal;
  let message: unknown;
  try {
    principal = await deps.auth.authenticate(ctx.authorization);
    ctx.keyId = principal.keyId;
    if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
    message = parseJsonBody(await reader.read(), { maxDepth: maxJsonDepth });
    await countMcpMessages(deps.limiter, principal, message);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw withHeaders(error, error.status === 401 ? { ...cors, ...WWW_AUTHENTICATE } : cors);
  }
  await serve(deps, ctx, mcp, { principal, requestId: ctx.requestId, log: ctx }, message, cors);
}

async function serve(deps: McpDeps, ctx: RequestContext, mcp: McpHeaders, caller: McpCaller, message: unknown, cors: Headers): Promise<void> {
  const server = createMcpServer(deps, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  // Closing the server aborts the signals of its running tool calls.
  if (ctx.aborted) return server.close();
  ctx.onAbort = () => void server.close();
  try {
    const response = await transport.handleRequest(toWebRequest(ctx, mcp), { parsedBody: message });
    await writeWebResponse(ctx, response, cors);
  } finally {
    ctx.onAbort = null;
    await server.close();
  }
}

export function mcpPreflight(deps: McpDeps, ctx: RequestContext): void {
  send(ctx, 200, '', deps.origins.preflight((ctx.mcp ?? NO_MCP_HEADERS).origin));
}

function withHeaders(error: ApiError, headers: Headers): ApiError {
  return new ApiError(error.code, { message: error.message, param: error.param ?? undefined, headers: { ...error.headers, ...headers } });
}
