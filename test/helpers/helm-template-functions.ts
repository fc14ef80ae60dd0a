// The Sprig and Helm functions helm-template.ts knows (besides and, or and include, which it
// evaluates itself), each as Helm defines it for the values a chart passes.
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';

/** `fail "message"`: the render stops with this message, as `helm template` does. */
export class TemplateFailure extends Error {
  override readonly name = 'TemplateFailure';
}

/** Go's truth: false, 0, "", nil and an empty map or list are false; everything else true. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/** Go's json.Marshal: map keys sorted. */
function toJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value ?? null));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).toSorted().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
}

/** Helm's toYaml: keys sorted, a list at its key's indentation, no trailing newline. */
function toYaml(value: unknown): string {
  return stringify(value ?? null, { sortMapEntries: true, indentSeq: false, lineWidth: 0 }).replace(/\n$/, '');
}

function indent(spaces: unknown, text: unknown): string {
  const pad = ' '.repeat(Number(spaces));
  return pad + String(text).replaceAll('\n', `\n${pad}`);
}

/** Go's printf for the verbs the chart uses: %s, %d and %v. */
function printf(format: unknown, ...args: unknown[]): string {
  let next = 0;
  return String(format).replace(/%([sdv%])/g, (_, verb: string) => {
    if (verb === '%') return '%';
    if (next >= args.length) return `%!${verb}(MISSING)`;
    return String(args[next++]);
  });
}

/** Go's eq/ne/gt compare values of one kind only. */
function comparable(a: unknown, b: unknown, name: string): void {
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string' && typeof a !== 'boolean')) {
    throw new Error(`${name}: incompatible types for comparison (${typeof a}, ${typeof b})`);
  }
}

/** Sprig's int: numbers truncated, numeric strings parsed, anything else 0. */
function toInt(value: unknown): number {
  const number = typeof value === 'string' ? Number.parseInt(value, 10) : Number(value);
  return Number.isFinite(number) ? Math.trunc(number) : 0;
}

export const TEMPLATE_FUNCTIONS: Readonly<Record<string, (...args: unknown[]) => unknown>> = {
  default: (fallback, value) => (truthy(value) ? value : fallback),
  printf,
  contains: (part, text) => String(text).includes(String(part)),
  trunc: (length, text) => String(text).slice(0, Number(length)),
  trimSuffix: (suffix, text) => (String(text).endsWith(String(suffix)) ? String(text).slice(0, -String(suffix).length || undefined) : String(text)),
  quote: (...values) => values.filter((v) => v !== null && v !== undefined).map((v) => JSON.stringify(String(v))).join(' '),
  int: toInt,
  not: (value) => !truthy(value),
  eq: (a, b) => (comparable(a, b, 'eq'), a === b),
  ne: (a, b) => (comparable(a, b, 'ne'), a !== b),
  gt: (a, b) => (comparable(a, b, 'gt'), (a as number) > (b as number)),
  toYaml,
  toJson,
  sha256sum: (text) => createHash('sha256').update(String(text)).digest('hex'),
  indent,
  nindent: (spaces, text) => `\n${indent(spaces, text)}`,
  fail: (message) => {
    throw new TemplateFailure(String(message));
  },
};
