import { maskApiKeys } from '../auth/mask-api-keys.ts';
import { ERROR_CATALOGUE, type ErrorCode, type ErrorType } from './catalogue.ts';

export interface ApiErrorOptions {
  /** The request field at fault, in OpenAI's notation: `messages[0].role`. */
  param?: string;
  /** Replaces the catalogue's message with a more precise one (never echo secrets or body text). */
  message?: string;
  /** Extra response headers (e.g. Retry-After on a 429). */
  headers?: Readonly<Record<string, string>>;
}

/** The only error type that reaches a client. Everything else becomes `internal_error`. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    const entry = ERROR_CATALOGUE[code];
    // An ApiError is an answer, not a bug: no stack trace. Capturing one was 5.6% of CPU in a
    // profile of a 429 flood.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    // A message may quote what the client sent (a model name, a path): never a key in it.
    super(options.message === undefined ? entry.message : maskApiKeys(options.message));
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.status = entry.status;
    this.type = entry.type;
    this.param = options.param ?? null;
    this.headers = options.headers;
  }

  toJSON(): { error: { message: string; type: ErrorType; param: string | null; code: ErrorCode } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError('internal_error');
}
