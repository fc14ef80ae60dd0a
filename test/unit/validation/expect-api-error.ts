import { expect } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';

/** Runs `action`, which must throw an ApiError with this status, code and param. */
export function expectApiError(action: () => unknown, expected: { status: number; code: ErrorCode; param: string | null }): ApiError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  const error = thrown as ApiError;
  expect({ status: error.status, code: error.code, param: error.param }).toEqual(expected);
  return error;
}
