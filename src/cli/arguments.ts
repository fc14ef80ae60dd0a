// Argument parsing and validation: every problem becomes a usage error naming the argument.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { isPlausibleEmail, normaliseEmail } from '../store/email.ts';
import { usageError } from './cli-io.ts';

const MAX_NAME_LENGTH = 100;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

export const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const satisfies ParseArgsOptionsConfig;

export function parseCommandArgs<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
}

/** Exactly `count` positionals, named in the message when missing. */
export function expectPositionals(positionals: string[], names: readonly string[]): string[] {
  if (positionals.length < names.length) throw usageError(`missing ${names[positionals.length]}`);
  if (positionals.length > names.length) throw usageError(`unexpected argument '${positionals[names.length]}'`);
  return positionals;
}

export function parseEmail(value: string, what = 'email'): string {
  if (!isPlausibleEmail(value)) throw usageError(`invalid ${what} '${value.replace(CONTROL_CHARS, '?')}'`);
  return normaliseEmail(value);
}

export function parsePositiveInteger(value: string | undefined, option: string): number | null {
  if (value === undefined) return null;
  const number = Number(value.trim());
  if (!POSITIVE_INTEGER.test(value.trim()) || !Number.isSafeInteger(number)) {
    throw usageError(`${option} must be a positive integer, got '${value}'`);
  }
  return number;
}

/** `a,b` → ['a', 'b'] (trimmed, deduplicated); absent → null, meaning every model. */
export function parseModels(value: string | undefined): string[] | null {
  if (value === undefined) return null;
  const models = [...new Set(value.split(',').map((model) => model.trim()).filter((model) => model !== ''))];
  if (models.length === 0) throw usageError('--models must list at least one model id');
  const bad = models.find((model) => !MODEL_ID.test(model));
  if (bad !== undefined) throw usageError(`--models: invalid model id '${bad.replace(CONTROL_CHARS, '?')}'`);
  return models;
}

export function parseName(value: string | undefined): string {
  const name = value?.trim() ?? '';
  if (name.length > MAX_NAME_LENGTH) throw usageError(`--name must be at most ${MAX_NAME_LENGTH} characters`);
  if (CONTROL_CHARS.test(name)) throw usageError('--name must not contain control characters');
  return name;
}
