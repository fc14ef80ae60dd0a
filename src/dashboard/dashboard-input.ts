// Reading fields of a dashboard request body, with errors that name the field.
import { ApiError } from '../errors/api-error.ts';

type Body = Readonly<Record<string, unknown>>;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function requiredString(body: Body, name: string, maxLength: number): string {
  const value = body[name];
  if (value === undefined || value === null || value === '') {
    throw new ApiError('missing_required_parameter', { param: name, message: `${name} is required.` });
  }
  if (typeof value !== 'string') throw new ApiError('invalid_type', { param: name, message: `${name} must be a string.` });
  if (value.length > maxLength) {
    throw new ApiError('invalid_value', { param: name, message: `${name} must be at most ${maxLength} characters.` });
  }
  return value;
}

/** A one-line name: trimmed, no control characters. */
export function requiredName(body: Body, name: string, maxLength: number): string {
  const value = requiredString(body, name, maxLength).trim();
  if (value === '' || CONTROL_CHARS.test(value)) {
    throw new ApiError('invalid_value', { param: name, message: `${name} must be a non-empty line of text.` });
  }
  return value;
}

/** An integer from 1 to max, or null when absent. */
export function optionalLimit(body: Body, name: string, max: number): number | null {
  const value = body[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ApiError('invalid_value', { param: name, message: `${name} must be a whole number from 1 to ${max} (the operator's limit).` });
  }
  return value;
}

/** A list of allowed strings, or null when absent or empty (no restriction). */
export function optionalSubset(body: Body, name: string, allowed: ReadonlySet<string>): string[] | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new ApiError('invalid_type', { param: name, message: `${name} must be a list of strings.` });
  }
  const unknown = value.find((item) => !allowed.has(item));
  if (unknown !== undefined) {
    throw new ApiError('invalid_value', { param: name, message: `${name}: unknown model ${JSON.stringify(String(unknown).slice(0, 100))}.` });
  }
  return value.length === 0 ? null : [...new Set(value as string[])];
}
