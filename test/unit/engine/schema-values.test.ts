// Property: for random schemas within the supported subset, every generated value validates (checked
// by an independent ajv with the standard formats), and the subset check accepts the schema.
import { describe, expect, it } from 'vitest';
import { createRandom, type Random } from '../../../src/engine/prng.ts';
import { findUnsupported } from '../../../src/engine/schema-subset.ts';
import { valueFor } from '../../../src/engine/schema-values.ts';
import { languageTables } from '../../../src/engine/word-tables.ts';
import { validatorFor } from '../../helpers/schema-validator.ts';

type Schema = Record<string, unknown>;

const FORMATS = ['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'hostname', 'ipv4', 'ipv6'];

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

function randomSchema(random: Random, depth: number, defs: string[]): Schema {
  const leaf = depth >= 4;
  const kind = Math.floor(random() * (leaf ? 7 : 12));
  const annotated = (schema: Schema): Schema => (random() < 0.3 ? { description: 'A field.', title: 'Field', ...schema } : schema);
  switch (kind) {
    case 0: {
      const schema: Schema = { type: 'string' };
      if (random() < 0.4) schema.minLength = Math.floor(random() * 20);
      if (random() < 0.4) schema.maxLength = (Number(schema.minLength) || 0) + Math.floor(random() * 10);
      return annotated(schema);
    }
    case 1:
      return annotated({ type: 'string', format: pick(random, FORMATS) });
    case 2: {
      const schema: Schema = { type: random() < 0.5 ? 'integer' : 'number' };
      const low = Math.floor(random() * 200) - 100;
      if (random() < 0.5) schema[random() < 0.5 ? 'minimum' : 'exclusiveMinimum'] = low;
      if (random() < 0.5) schema[random() < 0.5 ? 'maximum' : 'exclusiveMaximum'] = low + 2 + Math.floor(random() * 100);
      return annotated(schema);
    }
    case 3:
      return { type: 'boolean' };
    case 4:
      return { enum: pick(random, [['a', 'b', 'c'], [1, 2, 3], ['x', null, 3, true]]) };
    case 5:
      return { const: pick(random, ['fixed', 7, false, null]) };
    case 6:
      return { type: [pick(random, ['string', 'integer', 'boolean']), 'null'] };
    case 7:
    case 8: {
      const properties: Record<string, Schema> = {};
      const count = 1 + Math.floor(random() * 5);
      for (let index = 0; index < count; index++) properties[`p${index}`] = randomSchema(random, depth + 1, defs);
      const names = Object.keys(properties);
      const required = names.filter(() => random() < 0.6);
      const schema: Schema = { type: 'object', properties, required };
      if (random() < 0.6) schema.additionalProperties = false;
      return annotated(schema);
    }
    case 9: {
      const schema: Schema = { type: 'array', items: randomSchema(random, depth + 1, defs) };
      if (random() < 0.5) schema.minItems = Math.floor(random() * 3);
      if (random() < 0.5) schema.maxItems = (Number(schema.minItems) || 0) + Math.floor(random() * 4);
      return schema;
    }
    case 10:
      return { anyOf: [randomSchema(random, depth + 1, defs), { type: 'null' }] };
    default: {
      const name = `d${defs.length}`;
      defs.push(name);
      return { $ref: `#/$defs/${name}` };
    }
  }
}

function rootSchema(random: Random): Schema {
  const defs: string[] = [];
  const root = randomSchema(random, 0, defs);
  const schema: Schema = root.type === 'object' ? root : { type: 'object', properties: { value: root }, required: ['value'] };
  if (defs.length > 0) {
    const $defs: Record<string, Schema> = {};
    // Definitions are leaves, so no reference chain runs without end.
    for (const name of defs) $defs[name] = randomSchema(random, 4, []);
    schema.$defs = $defs;
  }
  return schema;
}

describe('schema values (property)', () => {
  it.each(['en', 'hr'] as const)('every value generated for a random schema in the subset validates (%s words)', (language) => {
    const words = languageTables(language).contentPool.words;
    const schemas = createRandom(20261125);
    for (let run = 0; run < 400; run++) {
      const schema = rootSchema(schemas);
      expect(findUnsupported(schema)).toBeNull();
      const validate = validatorFor(schema);
      for (let seed = 0; seed < 5; seed++) {
        const value = valueFor(schema, { random: createRandom(run * 31 + seed), words });
        if (!validate(value)) throw new Error(`${JSON.stringify(value)} fails ${JSON.stringify(schema)}: ${JSON.stringify(validate.errors)}`);
      }
    }
  });

  it('ends recursion through $ref when the schema allows it (zod and openai write such trees)', () => {
    const tree = {
      type: 'object',
      properties: { root: { $ref: '#/definitions/node' } },
      required: ['root'],
      definitions: { node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/definitions/node' } }, parent: { anyOf: [{ $ref: '#/definitions/node' }, { type: 'null' }] } }, required: ['label', 'children'] } },
    };
    const validate = validatorFor(tree);
    for (let seed = 0; seed < 50; seed++) expect(validate(valueFor(tree, { random: createRandom(seed), words: ['w'] }))).toBe(true);
  });

  it('is deterministic per seed', () => {
    const schema = rootSchema(createRandom(7));
    const words = ['one', 'two', 'three'];
    expect(valueFor(schema, { random: createRandom(3), words })).toEqual(valueFor(schema, { random: createRandom(3), words }));
  });

  it('names what it cannot generate', () => {
    expect(findUnsupported({ type: 'object', properties: { a: { type: 'string', pattern: '^x$' } } })).toEqual({ construct: 'pattern', path: 'properties.a.pattern' });
    expect(findUnsupported({ type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } } })).toEqual({ construct: 'oneOf', path: 'properties.a.oneOf' });
    expect(findUnsupported({ type: 'array', items: { type: 'string', format: 'regex' } })?.construct).toBe('format: "regex"');
    expect(findUnsupported({ $ref: 'https://example.com/schema' })?.path).toBe('$ref');
    // zod writes a pattern beside the format; the generated values match it.
    expect(findUnsupported({ type: 'string', format: 'uuid', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' })).toBeNull();
    expect(findUnsupported({ type: 'string', format: 'email', pattern: '^[0-9]+$' })?.construct).toBe('pattern');
    // One that backtracks without end on the format's values is refused under a deadline.
    expect(findUnsupported({ type: 'string', format: 'uuid', pattern: '^(.+)+X$' })?.construct).toBe('pattern');
    expect(findUnsupported({ type: 'string', format: 'uuid', pattern: '(' })?.construct).toBe('pattern');
  });

  it('keeps a property named __proto__ as an own property', () => {
    const value = valueFor({ type: 'object', properties: { ['__proto__']: { const: 1 } }, required: ['__proto__'] }, { random: createRandom(1), words: ['w'] });
    expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
    expect(JSON.stringify(value)).toBe('{"__proto__":1}');
  });
});
