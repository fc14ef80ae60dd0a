// Generates a JSON value valid against a schema within the supported subset (schema-subset.ts), from
// the seeded randomness: the same seed and schema give the same value. Well-formed, not meaningful.
import type { Random } from './prng.ts';

type Schema = Readonly<Record<string, unknown>>;

export interface ValueSource {
  readonly random: Random;
  /** Words for strings (the engine's vocabulary). */
  readonly words: readonly string[];
}

/** Past this depth optional properties are left out and arrays take their fewest items, so recursion ends. */
const SHALLOW_DEPTH = 4;
/** A schema that still recurses here requires itself without end. */
const MAX_DEPTH = 32;
const OPTIONAL_CHANCE = 0.6;
const DEFAULT_MAX_ITEMS = 3;

export function valueFor(schema: Schema, source: ValueSource): unknown {
  return new Generator(schema, source).value(schema, 0);
}

class Generator {
  readonly #root: Schema;
  readonly #random: Random;
  readonly #words: readonly string[];

  constructor(root: Schema, source: ValueSource) {
    this.#root = root;
    this.#random = source.random;
    this.#words = source.words.length > 0 ? source.words : ['value'];
  }

  value(schema: unknown, depth: number): unknown {
    if (depth > MAX_DEPTH) throw new RangeError('The schema requires itself without end.');
    if (typeof schema !== 'object' || schema === null) return this.#string({});
    const s = schema as Schema;
    if (typeof s.$ref === 'string') return this.value(this.#resolve(s.$ref), depth + 1);
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum)) return this.#pick(s.enum);
    if (Array.isArray(s.anyOf)) return this.value(this.#branch(s.anyOf, depth), depth + 1);
    switch (this.#type(s)) {
      case 'object':
        return this.#object(s, depth);
      case 'array':
        return this.#array(s, depth);
      case 'integer':
        return this.#integer(s);
      case 'number':
        return this.#number(s);
      case 'boolean':
        return this.#random() < 0.5;
      case 'null':
        return null;
      default:
        return this.#string(s);
    }
  }

  #type(s: Schema): string {
    const type = s.type;
    if (typeof type === 'string') return type;
    if (Array.isArray(type)) return this.#pick(type) as string;
    if (s.properties !== undefined || s.required !== undefined || s.additionalProperties !== undefined) return 'object';
    if (s.items !== undefined || s.minItems !== undefined) return 'array';
    if (s.minimum !== undefined || s.maximum !== undefined) return 'number';
    return 'string';
  }

  #object(s: Schema, depth: number): Record<string, unknown> {
    const properties = (s.properties ?? {}) as Readonly<Record<string, unknown>>;
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const result: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(properties)) {
      if (!required.has(name) && (depth >= SHALLOW_DEPTH || this.#random() >= OPTIONAL_CHANCE)) continue;
      // defineProperty: a property named __proto__ must be an own property, not the prototype.
      Object.defineProperty(result, name, { value: this.value(child, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    for (const name of required) {
      if (Object.hasOwn(result, name)) continue;
      const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : {};
      Object.defineProperty(result, name, { value: this.value(extra, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return result;
  }

  #array(s: Schema, depth: number): unknown[] {
    const min = typeof s.minItems === 'number' ? s.minItems : 0;
    const max = typeof s.maxItems === 'number' ? s.maxItems : Math.max(min, DEFAULT_MAX_ITEMS);
    const length = depth >= SHALLOW_DEPTH ? min : min + Math.floor(this.#random() * (Math.min(max, min + DEFAULT_MAX_ITEMS) - min + 1));
    const items: unknown[] = [];
    for (let index = 0; index < length; index++) items.push(this.value(s.items ?? {}, depth + 1));
    return items;
  }

  #integer(s: Schema): number {
    const [low, high] = bounds(s, 100, 1);
    const min = Math.ceil(low);
    const max = Math.floor(high);
    return min > max ? min : min + Math.floor(this.#random() * (max - min + 1));
  }

  #number(s: Schema): number {
    const [low, high] = bounds(s, 1000, 0.01);
    // Two decimals look like a measurement; the clamp keeps rounding inside the bounds.
    const value = Math.round((low + this.#random() * (high - low)) * 100) / 100;
    return Math.min(high, Math.max(low, value));
  }

  #string(s: Schema): string {
    if (typeof s.format === 'string') return this.#formatted(s.format);
    const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
    const min = typeof s.minLength === 'number' ? s.minLength : Math.min(1, max);
    const words = 1 + Math.floor(this.#random() * 3);
    let text = '';
    for (let count = 0; count < words || codePoints(text) < min; count++) text += (count === 0 ? '' : ' ') + this.#pick(this.#words);
    return codePoints(text) > max ? Array.from(text).slice(0, max).join('') : text;
  }

  #formatted(format: string): string {
    const word = (): string => (this.#pick(this.#words) as string).normalize('NFD').replace(/[^a-z]/gi, '').toLowerCase() || 'item';
    const digits = (count: number, radix = 10): string => {
      let out = '';
      for (let i = 0; i < count; i++) out += Math.floor(this.#random() * radix).toString(radix);
      return out;
    };
    const date = (): string => `20${digits(1, 3)}${digits(1)}-${pad(1 + Math.floor(this.#random() * 12))}-${pad(1 + Math.floor(this.#random() * 28))}`;
    const time = (): string => `${pad(Math.floor(this.#random() * 24))}:${pad(Math.floor(this.#random() * 60))}:${pad(Math.floor(this.#random() * 60))}Z`;
    switch (format) {
      case 'date-time':
        return `${date()}T${time()}`;
      case 'date':
        return date();
      case 'time':
        return time();
      case 'email':
        return `${word()}.${word()}@example.com`;
      case 'uri':
      case 'url':
        return `https://example.com/${word()}/${word()}`;
      case 'uuid':
        return `${digits(8, 16)}-${digits(4, 16)}-4${digits(3, 16)}-a${digits(3, 16)}-${digits(12, 16)}`;
      case 'hostname':
        return `${word()}.example.com`;
      case 'ipv4':
        return `10.${Math.floor(this.#random() * 256)}.${Math.floor(this.#random() * 256)}.${1 + Math.floor(this.#random() * 254)}`;
      case 'ipv6':
        return `fd00::${digits(4, 16)}:${digits(4, 16)}`;
      default:
        return word();
    }
  }

  #resolve(ref: string): unknown {
    if (ref === '#') return this.#root;
    const [, container, name] = ref.split('/');
    return (this.#root[container ?? ''] as Readonly<Record<string, unknown>> | undefined)?.[decodePointer(name ?? '')] ?? {};
  }

  /** Deep down, a branch that does not refer back is taken when there is one, so recursion ends. */
  #branch(branches: readonly unknown[], depth: number): unknown {
    if (depth >= SHALLOW_DEPTH) {
      const leaf = branches.find((branch) => typeof branch !== 'object' || branch === null || !('$ref' in branch));
      if (leaf !== undefined) return leaf;
    }
    return this.#pick(branches);
  }

  #pick(values: readonly unknown[]): unknown {
    return values[Math.floor(this.#random() * values.length)];
  }
}

/** The inclusive range a number may take; exclusive bounds are moved inwards by `step`. */
function bounds(s: Schema, span: number, step: number): [number, number] {
  let low = typeof s.minimum === 'number' ? s.minimum : -Infinity;
  let high = typeof s.maximum === 'number' ? s.maximum : Infinity;
  if (typeof s.exclusiveMinimum === 'number') low = Math.max(low, s.exclusiveMinimum + step);
  if (typeof s.exclusiveMaximum === 'number') high = Math.min(high, s.exclusiveMaximum - step);
  if (low === -Infinity && high === Infinity) return [0, span];
  if (low === -Infinity) return [high - span, high];
  if (high === Infinity) return [low, low + span];
  return [low, high];
}

function pad(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** String length as JSON Schema counts it: in code points. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function decodePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
