// The request schemas are written for ajv's draft-07 dialect; OpenAPI 3.1 speaks JSON Schema 2020-12.
// This rewrites the few keywords that differ, on a copy, once when the document is built.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A 2020-12 copy of a draft-07 schema (or of any value inside one). */
export function toJsonSchema2020(schema: unknown): Record<string, unknown> {
  return convert(schema) as Record<string, unknown>;
}

function convert(value: unknown): Json {
  if (Array.isArray(value)) return value.map(convert);
  if (value === null || typeof value !== 'object') return value as Json;
  const source = value as Record<string, unknown>;
  const out: Record<string, Json> = {};
  for (const [key, child] of Object.entries(source)) {
    switch (key) {
      // A dialect per schema object is the document's business (jsonSchemaDialect), not the body's.
      case '$schema':
        break;
      case 'definitions':
        out['$defs'] = convert(child);
        break;
      case '$ref':
        out['$ref'] = typeof child === 'string' ? child.replace('#/definitions/', '#/$defs/') : (child as Json);
        break;
      // draft-07's tuple form of items is 2020-12's prefixItems; its additionalItems is then items.
      case 'items':
        if (Array.isArray(child)) out['prefixItems'] = convert(child);
        else out['items'] = convert(child);
        break;
      case 'additionalItems':
        if (Array.isArray(source['items'])) out['items'] = convert(child);
        break;
      case 'dependencies':
        Object.assign(out, splitDependencies(child as Record<string, unknown>));
        break;
      // OpenAPI 3.0's nullable: a type that also admits null.
      case 'nullable':
        break;
      default:
        out[key] = convert(child);
    }
  }
  if (source['nullable'] === true) addNull(out);
  return out;
}

function splitDependencies(dependencies: Record<string, unknown>): Record<string, Json> {
  const required: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  for (const [name, dependency] of Object.entries(dependencies)) {
    if (Array.isArray(dependency)) required[name] = convert(dependency);
    else schemas[name] = convert(dependency);
  }
  return {
    ...(Object.keys(required).length > 0 ? { dependentRequired: required } : {}),
    ...(Object.keys(schemas).length > 0 ? { dependentSchemas: schemas } : {}),
  };
}

function addNull(schema: Record<string, Json>): void {
  const type = schema['type'];
  if (typeof type === 'string' && type !== 'null') schema['type'] = [type, 'null'];
  else if (Array.isArray(type) && !type.includes('null')) schema['type'] = [...type, 'null'];
  if (Array.isArray(schema['enum']) && !schema['enum'].includes(null)) schema['enum'] = [...schema['enum'], null];
}
