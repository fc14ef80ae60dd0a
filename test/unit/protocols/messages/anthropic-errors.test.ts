// Every catalogue code has an Anthropic error type that agrees with its HTTP status, and the bodies
// and stream events take Anthropic's shape.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/errors/api-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../../src/errors/catalogue.ts';
import { anthropicErrorBody, anthropicErrorEvent, anthropicErrorType } from '../../../../src/protocols/messages/anthropic-errors.ts';

// Anthropic's error types (@anthropic-ai/sdk ErrorType) for each status Munja answers with.
const EXPECTED_BY_STATUS: Record<number, string> = {
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

describe('Anthropic error types', () => {
  it.each(Object.keys(ERROR_CATALOGUE) as ErrorCode[])('%s maps by its status', (code) => {
    const { status } = ERROR_CATALOGUE[code];
    expect(EXPECTED_BY_STATUS).toHaveProperty(String(status));
    expect(anthropicErrorType(code)).toBe(EXPECTED_BY_STATUS[status]);
  });

  it('renders a body with the type, the message and the request id', () => {
    const error = new ApiError('model_not_found', { param: 'model' });
    expect(JSON.parse(anthropicErrorBody(error, 'req_1'))).toEqual({ type: 'error', error: { type: 'not_found_error', message: error.message }, request_id: 'req_1' });
  });

  it('renders a stream failure as an error event: by its code when the catalogue has it, else api_error', () => {
    const event = (failure: { message: string; code?: string | null }) => {
      const [head, data] = anthropicErrorEvent(failure, 'req_1').split('\n');
      expect(head).toBe('event: error');
      return JSON.parse(data!.slice('data: '.length));
    };
    expect(event(new ApiError('shutting_down')).error.type).toBe('overloaded_error');
    expect(event(new ApiError('upstream_error')).error.type).toBe('api_error');
    expect(event({ message: 'boom', code: 'InternalServerError' })).toEqual({ type: 'error', error: { type: 'api_error', message: 'boom' }, request_id: 'req_1' });
    expect(event({ message: 'boom', code: 'toString' }).error.type).toBe('api_error');
  });
});
