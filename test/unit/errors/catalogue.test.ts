// Every error code is documented in the errors table of docs/api.md with its status, and every
// status is one SPEC §7.2 lists (405 is the choice for a wrong method).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';

const API_DOC = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
const SPEC_STATUSES = [400, 401, 403, 404, 405, 408, 413, 429, 500, 502, 503, 504];

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));
const SOURCES = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('catalogue.ts'))
  .map((file) => readFileSync(join(SRC, file), 'utf8'))
  .join('\n');

describe('error catalogue', () => {
  it.each(Object.keys(ERROR_CATALOGUE))('%s is raised somewhere in src/', (code) => {
    expect(SOURCES).toContain(`'${code}'`);
  });

  it.each(Object.keys(ERROR_CATALOGUE) as ErrorCode[])('%s is in the docs/api.md errors table with its status', (code) => {
    const { status } = ERROR_CATALOGUE[code];
    expect(API_DOC).toMatch(new RegExp(`^\\| ${status} \\| \`${code}\` \\|`, 'm'));
    expect(SPEC_STATUSES).toContain(status);
  });

  it('serialises to the OpenAI error shape', () => {
    const error = new ApiError('invalid_value', { param: 'temperature' });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      error: { message: error.message, type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' },
    });
  });
});
