// Which browser pages may call /mcp. A request without an Origin header comes from a program
// (Claude Desktop, Cursor, the MCP SDKs) and passes. A browser always sends Origin on a POST, so
// a page on another site (or a DNS-rebinding attack on a Munja at localhost) is refused unless
// its origin is on server.mcpAllowedOrigins; listed origins get the CORS headers they need.
import { ApiError } from '../errors/api-error.ts';
import type { Headers } from '../http/respond.ts';

const NO_HEADERS: Headers = Object.freeze({});

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id',
  'access-control-max-age': '600',
} as const;

export class OriginPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.#allowed = new Set(allowedOrigins);
  }

  /** The CORS headers for a response to `origin` ('' when absent); throws forbidden_origin. */
  check(origin: string): Headers {
    if (origin === '') return NO_HEADERS;
    if (!this.#allowed.has(origin)) {
      throw new ApiError('forbidden_origin', {
        message: `Requests from the browser origin ${JSON.stringify(origin.slice(0, 200))} are not allowed. An operator can add it to server.mcpAllowedOrigins.`,
      });
    }
    return {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version, www-authenticate, x-request-id',
      vary: 'Origin',
    };
  }

  /** The answer headers to a CORS preflight (OPTIONS); throws forbidden_origin. */
  preflight(origin: string): Headers {
    const headers = this.check(origin);
    return headers === NO_HEADERS ? { allow: 'POST, OPTIONS' } : { ...headers, ...PREFLIGHT_HEADERS };
  }
}
