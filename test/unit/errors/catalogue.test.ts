// Every error code is documented in the README's errors table with its status, and every
// status is one SPEC §7.2 lists (405 is the choice for a wrong method).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const SPEC_STATUSES = [400, 401, 403, 404, 405, 408, 413, 429, 500, 502, 503, 504];

describe('error catalogue', () => {
  it.each(Object.keys(ERROR_CATALOGUE) as ErrorCode[])('%s is in the README table with its status', (code) => {
    const { status } = ERROR_CATALOGUE[code];
    expect(README).toMatch(new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, 'm'));
    expect(SPEC_STATUSES).toContain(status);
  });

  it('serialises to the OpenAI error shape', () => {
    const error = new ApiError('invalid_value', { param: 'temperature' });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      error: { message: error.message, type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' },
    });
  });
});
