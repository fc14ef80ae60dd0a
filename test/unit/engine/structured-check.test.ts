import { describe, expect, it } from 'vitest';
import type { EngineChoice, EngineStructure } from '../../../src/engine/engine-types.ts';
import { checkSchema, MAX_SCHEMA_CHARS } from '../../../src/engine/schema-cache.ts';
import { type CheckedStructure, checkOutput, checkStructure } from '../../../src/engine/structured-check.ts';

const PARAMETERS = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const FORMAT = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
const STRUCTURE: EngineStructure = {
  tools: [{ name: 'f', parameters: PARAMETERS }],
  toolChoice: 'auto',
  parallelToolCalls: true,
  endsWithToolResult: false,
  json: true,
  jsonSchema: FORMAT,
};

function checked(structure: EngineStructure = STRUCTURE): CheckedStructure {
  const result = checkStructure(structure);
  if ('code' in result) throw new Error(result.message);
  return result;
}
function call(args: string, finishReason: EngineChoice['finishReason'] = 'tool_calls'): EngineChoice {
  return { pieces: [], finishReason, completionTokens: 1, toolCalls: [{ id: 'call_1', name: 'f', argumentPieces: [args] }] };
}
function content(text: string): EngineChoice {
  return { pieces: [text], finishReason: 'stop', completionTokens: 1 };
}

describe('checkStructure', () => {
  it('refuses, naming the param, a schema that is not JSON Schema, one outside the subset, and non-object arguments', () => {
    const withTool = (parameters: Record<string, unknown>): EngineStructure => ({ ...STRUCTURE, tools: [STRUCTURE.tools[0]!, { name: 'g', parameters }] });
    expect(checkStructure(withTool({ type: 'object', properties: { a: { type: 'strnig' } } }))).toMatchObject({ code: 'invalid_value', param: 'tools[1].function.parameters' });
    const patterned = withTool({ type: 'object', properties: { a: { type: 'string', pattern: '^a' } }, required: ['a'] });
    expect(checkStructure({ ...patterned, toolChoice: { name: 'g' } })).toMatchObject({ code: 'unsupported_parameter', param: 'tools[1].function.parameters.properties.a.pattern' });
    expect(checkStructure({ ...patterned, tools: patterned.tools.slice(1), toolChoice: 'required' })).toMatchObject({ code: 'unsupported_parameter', param: 'tools[0].function.parameters.properties.a.pattern' });
    expect(checkStructure(withTool({ type: 'array' }))).toMatchObject({ code: 'unsupported_parameter', param: 'tools[1].function.parameters.type' });
    expect(checkStructure({ ...STRUCTURE, jsonSchema: { $ref: '#/nowhere' } })).toMatchObject({ code: 'invalid_value', param: 'response_format.json_schema.schema' });
  });

  it('leaves out a tool outside the subset that the request does not force, and calls the others', () => {
    const allOf = { type: 'object', properties: { a: { allOf: [{ type: 'string' }, { minLength: 1 }] } }, required: ['a'] };
    const offered: EngineStructure = { ...STRUCTURE, tools: [{ name: 'odd', parameters: allOf }, STRUCTURE.tools[0]!] };
    for (const toolChoice of ['auto', 'required', 'none', { name: 'f' }] as const) {
      const result = checked({ ...offered, toolChoice });
      expect(result.generation.tools.map((tool) => tool.name)).toEqual(['f']);
      expect([...result.tools.keys()]).toEqual(['f']);
    }
    // Only that tool, under auto: an answer without a call.
    expect(checked({ ...offered, tools: offered.tools.slice(0, 1) }).generation.tools).toEqual([]);
    expect(checkStructure({ ...offered, toolChoice: { name: 'odd' } })).toMatchObject({ code: 'unsupported_parameter', param: 'tools[0].function.parameters.properties.a.allOf' });
  });

  it('leaves out of its values the optional properties outside the subset, wherever they are, and keeps the schema otherwise', () => {
    const runId = { type: 'string', pattern: '^wf_[a-z0-9-]{6,}$' };
    const workflow = { type: 'object', properties: { script: { type: 'string' }, resumeFromRunId: runId }, additionalProperties: false };
    // Parsed, so that __proto__ is a property's name (a literal would set the prototype).
    const nested = JSON.parse(`{"type":"object","properties":{"jobs":{"type":"array","items":${JSON.stringify(workflow)}},"__proto__":${JSON.stringify(runId)},"id":{"type":"integer"}},"required":["jobs","id"]}`);
    const result = checked({ ...STRUCTURE, tools: [{ name: 'f', parameters: workflow }, { name: 'g', parameters: nested }], jsonSchema: FORMAT });
    const [f, g] = result.generation.tools;
    expect(f!.parameters).toEqual({ type: 'object', properties: { script: { type: 'string' } }, additionalProperties: false });
    expect(g!.parameters).toEqual({ type: 'object', properties: { jobs: { type: 'array', items: f!.parameters }, id: { type: 'integer' } }, required: ['jobs', 'id'] });
    expect(Object.keys(nested.properties)).toEqual(['jobs', '__proto__', 'id']);
    // The client's schemas are untouched, and still the ones replies are validated against.
    expect(workflow.properties.resumeFromRunId).toBe(runId);
    expect(result.tools.get('f')!.schema.validate({ resumeFromRunId: 'nope' })).toBe(false);
    // Nothing left out: the request's own structure.
    expect(checked().generation).toBe(STRUCTURE);
  });

  it('takes a recursive schema with a way out, and refuses one that requires itself without end', () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['name', 'children'] };
    expect(checkStructure({ ...STRUCTURE, jsonSchema: tree })).not.toHaveProperty('code');
    const endless = { type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] };
    expect(checkStructure({ ...STRUCTURE, jsonSchema: endless })).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema' });
  });

  it('refuses a schema larger than the cap before compiling it', () => {
    const properties: Record<string, unknown> = {};
    for (let index = 0; JSON.stringify(properties).length <= MAX_SCHEMA_CHARS; index++) properties[`property_${index}`] = { type: 'string' };
    expect(checkStructure({ ...STRUCTURE, jsonSchema: { type: 'object', properties } })).toMatchObject({ code: 'invalid_value', param: 'response_format.json_schema.schema' });
  });
});

describe('the schema cache', () => {
  it('compiles a schema once and stays bounded', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 3 } } };
    const first = checkSchema(schema);
    expect(checkSchema(JSON.parse(JSON.stringify(schema)))).toBe(first);
    expect(first.validate({ n: 2 })).toBe(false);
    for (let index = 0; index < 300; index++) checkSchema({ type: 'object', properties: { [`k${index}`]: { type: 'string' } } });
    // The first one was evicted (least recently used): a new compile.
    expect(checkSchema(schema)).not.toBe(first);
  });
});

describe('checkOutput', () => {
  it('lets valid calls and content through', () => {
    expect(checkOutput([call('{"n":1}'), content('{"a":"x"}')], checked(), [])).toBeNull();
  });

  it('refuses, naming the keyword, arguments or content that do not validate: the schema asks what the engine cannot give', () => {
    expect(checkOutput([call('{"n":"one"}')], checked(), [])).toMatchObject({ code: 'unsupported_parameter', param: 'tools[0].function.parameters.properties.n.type' });
    expect(checkOutput([content('{"b":1}')], checked(), [])).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.required' });
  });

  it('fails on arguments that are not JSON: a generator fault', () => {
    expect(() => checkOutput([call('{"n":')], checked(), [])).toThrow(SyntaxError);
  });

  it('lets through what max_tokens or a stop sequence cut', () => {
    expect(checkOutput([call('{"n":', 'length')], checked(), [])).toBeNull();
    expect(checkOutput([content('{"a":"x')], checked(), ['"}'])).toBeNull();
  });
});

describe('client patterns', () => {
  const email = (pattern: string) => ({ ...STRUCTURE, jsonSchema: { type: 'object', properties: { to: { type: 'string', format: 'email', pattern } }, required: ['to'] } });

  it('match in linear time where a backtracking engine would not end', () => {
    const result = checked(email('^(?:(?:relationship|organization|information|development)\\.|(?:.|.|.|.)*X)'));
    expect(checkOutput([content(JSON.stringify({ to: `${'a'.repeat(40)}@example.com` }))], result, [])).toMatchObject({ param: 'response_format.json_schema.schema.properties.to.pattern' });
  });

  it('refuses look-around and back-references, and an invalid pattern as an invalid schema', () => {
    expect(checkStructure(email('^(?=.*@)'))).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.properties.to.pattern' });
    expect(checkStructure(email('(.)\\1|@'))).toMatchObject({ code: 'unsupported_parameter', param: 'response_format.json_schema.schema.properties.to.pattern' });
    expect(checkStructure(email('[a-'))).toMatchObject({ code: 'invalid_value', param: 'response_format.json_schema.schema' });
  });
});
