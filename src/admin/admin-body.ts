// Reads and validates an admin API request body against its schema (admin-schemas.ts).
import { Ajv, type ValidateFunction } from 'ajv';
import { ApiError } from '../errors/api-error.ts';
import type { BodyReader } from '../http/body-reader.ts';
import { isJsonContentType } from '../http/content-type.ts';
import type { RequestContext } from '../http/request-context.ts';
import { mapAjvError } from '../validation/map-ajv-error.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true });
const MAX_DEPTH = 8;

export function bodyValidator<T>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

/** The body as `validate` accepts it; with `optional`, an empty body reads as `{}`. */
export async function readBody<T>(ctx: RequestContext, reader: BodyReader, validate: ValidateFunction<T>, optional = false): Promise<T> {
  const bytes = await reader.read();
  if (optional && bytes.byteLength === 0) return checked({}, validate);
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  return checked(parseJsonBody(bytes, { maxDepth: MAX_DEPTH }), validate);
}

function checked<T>(value: unknown, validate: ValidateFunction<T>): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('invalid_body');
  if (validate(value)) return value;
  const error = validate.errors?.[0];
  throw error === undefined ? new ApiError('invalid_body') : mapAjvError(error, value);
}
