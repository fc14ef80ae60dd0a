// What is wrong with a config file, said so that the fix is plain: a misspelt or snake_case name
// gets the name meant, a URL without its scheme gets an example; anything else is ajv's own words.
import type { ErrorObject } from 'ajv';
import { CONFIG_FILE_SCHEMA } from './config-schema.ts';
import { editDistance } from './edit-distance.ts';

export function configFileProblem(error: ErrorObject | undefined): string {
  const where = error?.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(top level)';
  if (error === undefined) return `${where} is invalid`;
  if (error.keyword === 'additionalProperties') {
    const name = String(error.params['additionalProperty']);
    const meant = nameMeant(name, propertiesAt(error.schemaPath));
    return `${where} has an unknown setting "${name}"${meant === undefined ? '' : `; did you mean "${meant}"?`}`;
  }
  if (error.keyword === 'enum') {
    return `${where} must be one of ${(error.params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
  }
  if (error.keyword === 'pattern' && error.instancePath.endsWith('/baseUrl')) {
    return `${where} must be an http:// or https:// URL, scheme included, such as "http://127.0.0.1:8000/v1"`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** The `properties` names of the schema object that holds the failing `additionalProperties`. */
function propertiesAt(schemaPath: string): string[] {
  let node: unknown = CONFIG_FILE_SCHEMA;
  for (const segment of schemaPath.split('/').slice(1, -1)) node = (node as Record<string, unknown> | undefined)?.[decodeURIComponent(segment)];
  const properties = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties === undefined ? [] : Object.keys(properties);
}

function nameMeant(name: string, known: readonly string[]): string | undefined {
  const plain = (text: string) => text.replaceAll(/[_-]/g, '').toLowerCase();
  return known.find((candidate) => plain(candidate) === plain(name))
    ?? known.find((candidate) => editDistance(candidate.toLowerCase(), name.toLowerCase()) <= 2);
}

