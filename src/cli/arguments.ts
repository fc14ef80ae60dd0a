// Argument parsing and validation: every problem becomes a usage error naming the argument.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { editDistance } from '../config/edit-distance.ts';
import { isPlausibleEmail, normaliseEmail } from '../store/email.ts';
import { usageError } from './cli-io.ts';

const MAX_NAME_LENGTH = 100;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/** `command` (e.g. 'keys create') names the command in errors and in the help they point at. */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(args: string[], options: T, command: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(optionProblem(error as NodeJS.ErrnoException, Object.keys(options), command), command);
  }
}

// node:util's own messages suggest quoting tricks (with unbalanced quotes) rather than the fix.
function optionProblem(error: NodeJS.ErrnoException, known: readonly string[], command: string): string {
  const option = /'(-[^' ]*)/.exec(error.message)?.[1] ?? '';
  const name = option.replace(/^-+/, '');
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const guess = known.find((candidate) => editDistance(candidate, name) <= 2 || (name.length >= 2 && candidate.startsWith(name)));
      if (guess !== undefined) return `unknown option '${option}'; did you mean '--${guess}'?`;
      const takes = known.length === 0 ? 'takes no options' : `takes ${known.map((candidate) => `--${candidate}`).join(', ')}`;
      return `unknown option '${option}'; 'munja ${command}' ${takes}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(error.message) ? `option '--${name}' needs a value` : `option '--${name}' takes no value`;
    default:
      return error.message;
  }
}

/** Exactly `count` positionals, named in the message when missing. */
export function expectPositionals(positionals: string[], names: readonly string[], command = ''): string[] {
  if (positionals.length < names.length) throw usageError(`missing ${names[positionals.length]}`, command);
  if (positionals.length > names.length) throw usageError(`unexpected argument '${positionals[names.length]}'`, command);
  return positionals;
}

/** An address for a new account: one plain address (store/email.ts). */
export function parseEmail(value: string, what = 'email'): string {
  if (!isPlausibleEmail(value)) throw usageError(`invalid ${what} '${value.replace(CONTROL_CHARS, '?')}'`);
  return normaliseEmail(value);
}

// Every address the store ever accepted: one `@`, no spaces, a domain of non-empty labels.
const STORED_EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

/** The address of an existing account, which may predate the current rules (`one<me@example.com>`). */
export function parseAccountEmail(value: string, what = 'email'): string {
  const email = normaliseEmail(value);
  if (email.length > 254 || CONTROL_CHARS.test(email) || !STORED_EMAIL.test(email)) {
    throw usageError(`invalid ${what} '${value.replace(CONTROL_CHARS, '?')}'`);
  }
  return email;
}

export function parsePositiveInteger(value: string | undefined, option: string): number | null {
  if (value === undefined) return null;
  const number = Number(value.trim());
  if (!POSITIVE_INTEGER.test(value.trim()) || !Number.isSafeInteger(number)) {
    throw usageError(`${option} must be a positive integer, got '${value}'`);
  }
  return number;
}

/**
 * `a,b` → ['a', 'b'] (trimmed, deduplicated); absent → null, meaning every model. Each id must be
 * one of `configured` (the server's models): a key limited to an unknown id could never be used.
 */
export function parseModels(value: string | undefined, configured: readonly string[]): string[] | null {
  if (value === undefined) return null;
  const models = [...new Set(value.split(',').map((model) => model.trim()).filter((model) => model !== ''))];
  if (models.length === 0) throw usageError('--models must list at least one model id', 'keys create');
  const bad = models.find((model) => !MODEL_ID.test(model));
  if (bad !== undefined) throw usageError(`--models: invalid model id '${bad.replace(CONTROL_CHARS, '?')}'`, 'keys create');
  const unknown = models.find((model) => !configured.includes(model));
  if (unknown !== undefined) {
    throw usageError(`--models: unknown model '${unknown}'; the configured models are ${configured.join(', ')}`, 'keys create');
  }
  return models;
}

export function parseName(value: string | undefined): string {
  const name = value?.trim() ?? '';
  if (name.length > MAX_NAME_LENGTH) throw usageError(`--name must be at most ${MAX_NAME_LENGTH} characters`);
  if (CONTROL_CHARS.test(name)) throw usageError('--name must not contain control characters');
  return name;
}
