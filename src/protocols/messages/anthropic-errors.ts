// Errors on the Messages API in Anthropic's shape: {"type":"error","error":{"type","message"},"request_id"}.
// The statuses stay Munja's own (a 503 is not Anthropic's 529); the error type follows the status of
// the catalogue entry, so every code maps and a new status cannot go unmapped (the table's type).
import type { ApiError } from '../../errors/api-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors/catalogue.ts';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

type CatalogueStatus = (typeof ERROR_CATALOGUE)[ErrorCode]['status'];

export const ANTHROPIC_ERROR_TYPES: Readonly<Record<CatalogueStatus, AnthropicErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  408: 'invalid_request_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};

export function anthropicErrorType(code: ErrorCode): AnthropicErrorType {
  return ANTHROPIC_ERROR_TYPES[ERROR_CATALOGUE[code].status];
}

/** An error as it ends a stream that failed after it opened: its code when it has one from the catalogue. */
export interface StreamFailure {
  readonly message: string;
  readonly code?: string | null;
}

/** The error body of a response (an ErrorFormat). */
export function anthropicErrorBody(error: ApiError, requestId: string): string {
  return `{"type":"error","error":{"type":"${anthropicErrorType(error.code)}","message":${JSON.stringify(error.message)}},"request_id":"${requestId}"}`;
}

/** The `error` event that ends a stream; a failure whose code is not the catalogue's is an `api_error`. */
export function anthropicErrorEvent(failure: StreamFailure, requestId: string): string {
  const { code } = failure;
  const type = typeof code === 'string' && Object.hasOwn(ERROR_CATALOGUE, code) ? anthropicErrorType(code as ErrorCode) : 'api_error';
  return `event: error\ndata: {"type":"error","error":{"type":"${type}","message":${JSON.stringify(failure.message)}},"request_id":"${requestId}"}\n\n`;
}
