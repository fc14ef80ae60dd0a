// The OpenAPI document: valid OpenAPI 3.1 by an independent validator, every schema in it valid
// JSON Schema 2020-12, and every operation with its security and SPEC section 7's error answers.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ADMIN_PATHS } from '../../../src/openapi/admin-paths.ts';
import { ERROR_STATUSES } from '../../../src/openapi/error-schemas.ts';
import { openApiDocument } from '../../../src/openapi/openapi-document.ts';

type Operation = { security: Record<string, string[]>[]; responses: Record<string, { content?: Record<string, { schema?: unknown }> }>; requestBody?: unknown };

const document = openApiDocument() as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is refused by the validator when broken (a dangling reference)', async () => {
    const broken = structuredClone(document);
    broken.paths['/health']!['get']!.responses['200']!.content!['application/json']!.schema = { $ref: '#/components/schemas/Nothing' };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('holds only schemas that are valid JSON Schema 2020-12, compiled strictly', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, discriminator: true });
    (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
    const defs = JSON.parse(JSON.stringify(document.components.schemas).replaceAll('#/components/schemas/', '#/$defs/')) as Record<string, unknown>;
    ajv.addSchema({ $id: 'https://munja.invalid/components', $defs: defs });
    for (const name of Object.keys(defs)) {
      expect(() => ajv.compile({ $ref: `https://munja.invalid/components#/$defs/${name}` }), name).not.toThrow();
    }
  });

  it('gives every operation a security requirement, and the admin API an admin key', () => {
    for (const { path, method, operation } of operations) {
      const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
      if (path.startsWith('/v1/admin/')) expect(schemes, `${method} ${path}`).toEqual(['adminKey']);
      else if (['/health', '/readyz', '/openapi.json'].includes(path) || method === 'options') expect(schemes, `${method} ${path}`).toEqual([]);
      else expect(schemes, `${method} ${path}`).toContain('apiKey');
    }
    expect(Object.keys(ADMIN_PATHS).length).toBeGreaterThanOrEqual(7);
  });

  it('lists on every operation the error statuses any request can meet, in the error shape', () => {
    for (const { path, method, operation } of operations) {
      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining([400, 429, 500, 503]));
      if (operation.security.length > 0) expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining([401, 403]));
      if (operation.requestBody !== undefined) expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining([408, 413]));
      for (const status of statuses.filter((status) => status >= 400 && Object.hasOwn(ERROR_STATUSES, status))) {
        const schema = JSON.stringify(operation.responses[String(status)]!.content!['application/json']!.schema);
        expect(schema, `${method} ${path} ${status}`).toMatch(/#\/components\/schemas\/(Anthropic)?Error"/);
      }
    }
  });

  it('describes the request bodies with the schemas the server validates with', () => {
    const chat = document.components.schemas['ChatCompletionRequest'] as { required: string[]; properties: Record<string, unknown> };
    expect(chat.required).toEqual(['model', 'messages']);
    expect(Object.keys(chat.properties)).toEqual(expect.arrayContaining(['model', 'messages', 'temperature', 'max_tokens', 'stream', 'tools']));
    for (const name of ['ResponsesRequest', 'MessagesRequest', 'CountTokensRequest', 'CreateAccountRequest', 'ChangeAccountRequest', 'CreateKeyRequest', 'ChangeKeyRequest', 'RotateKeyRequest']) {
      expect(document.components.schemas[name], name).toMatchObject({ type: 'object', additionalProperties: false });
    }
  });
});
