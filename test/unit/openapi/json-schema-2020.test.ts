// The draft-07 → 2020-12 conversion: the keywords that differ are rewritten, and a converted request
// schema accepts and refuses exactly the bodies the server's own validator does.
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CREATE_KEY_SCHEMA } from '../../../src/admin/admin-schemas.ts';
import { toJsonSchema2020 } from '../../../src/openapi/json-schema-2020.ts';
import { MESSAGES_REQUEST_SCHEMA } from '../../../src/protocols/messages/messages-request-schema.ts';
import { ANY_CHAT_REQUEST_SCHEMA } from '../../../src/validation/chat-request-schema.ts';

describe('toJsonSchema2020', () => {
  it('rewrites definitions, their references, nullable, tuples and dependencies', () => {
    const converted = toJsonSchema2020({
      $schema: 'http://json-schema.org/draft-07/schema#',
      definitions: { name: { type: 'string', nullable: true } },
      properties: {
        name: { $ref: '#/definitions/name' },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        list: { type: 'array', items: { type: 'string' } },
        tag: { enum: ['a', 'b'], nullable: true },
      },
      dependencies: { a: ['b'], c: { required: ['d'] } },
    });
    expect(converted).toEqual({
      $defs: { name: { type: ['string', 'null'] } },
      properties: {
        name: { $ref: '#/$defs/name' },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false },
        list: { type: 'array', items: { type: 'string' } },
        tag: { enum: ['a', 'b', null] },
      },
      dependentRequired: { a: ['b'] },
      dependentSchemas: { c: { required: ['d'] } },
    });
  });

  it('leaves the schema it converts unchanged', () => {
    const schema = { definitions: { x: { type: 'string' } } };
    toJsonSchema2020(schema);
    expect(schema).toEqual({ definitions: { x: { type: 'string' } } });
  });

  const draft07 = new Ajv({ strict: true, allowUnionTypes: true, discriminator: true });
  const draft2020 = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true });
  const cases: Array<[string, object, unknown[]]> = [
    ['chat', ANY_CHAT_REQUEST_SCHEMA, [
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }] },
      { model: 'fast', messages: [] },
      { model: 'fast', messages: [{ role: 'robot', content: 'hi' }] },
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }], temperature: 3 },
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }], stop: ['a', 'b'], stream: true, stream_options: { include_usage: true } },
      { model: 'fast', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [{ type: 'function', function: { name: 'f' } }] },
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }], extra: 1 },
    ]],
    ['messages', MESSAGES_REQUEST_SCHEMA, [
      { model: 'fast', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      { model: 'fast', messages: [{ role: 'user', content: 'hi' }] },
      { model: 'fast', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', source: {} }] }] },
    ]],
    ['create key', CREATE_KEY_SCHEMA, [{ account: 'a@b.c', rpm: null }, { account: '' }, { account: 'a@b.c', rpm: 0 }]],
  ];

  it.each(cases)('keeps the server\'s verdicts on %s bodies', (_name, schema, bodies) => {
    const server = draft07.compile(schema);
    const document = draft2020.compile(toJsonSchema2020(schema));
    const verdicts = bodies.map((body) => [server(body), document(body)]);
    for (const [serverVerdict, documentVerdict] of verdicts) expect(documentVerdict).toBe(serverVerdict);
    expect(verdicts.map(([verdict]) => verdict)).toContain(true);
    expect(verdicts.map(([verdict]) => verdict)).toContain(false);
  });
});
