// Tool results, and failures as MCP tool errors (`isError: true`): a model reading the result can
// act on the message, where a JSON-RPC error would only surface as a failed call in the client.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors/api-error.ts';
import type { Logger } from '../observability/logger.ts';

export function toolResult(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent };
}

/** The message names the error code (and the argument at fault) so callers can branch on it. */
export function toolError(error: unknown, logger: Logger, requestId: string): CallToolResult {
  if (!(error instanceof ApiError)) logger.error({ err: error, reqId: requestId }, 'unhandled error in an MCP tool');
  const apiError = error instanceof ApiError ? error : new ApiError('internal_error');
  const detail = apiError.param === null ? apiError.code : `${apiError.code}, argument ${apiError.param}`;
  return { isError: true, content: [{ type: 'text', text: `${apiError.message} (${detail})` }] };
}
