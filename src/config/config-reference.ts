// The configuration file's reference, as markdown tables, generated from its schema (the settings'
// descriptions, accepted values and defaults live there): docs/configuration.md carries it, and a
// test keeps the two equal (`npm run docs:config` rewrites it).
import { CONFIG_FILE_SCHEMA } from './config-schema.ts';

type Schema = Readonly<Record<string, unknown>>;

const INT32_MAX = 2_147_483_647;

/** The reference: a section per top-level setting, a row per setting under it. */
export function configReference(): string {
  const sections: string[] = [];
  for (const [name, schema] of Object.entries(properties(CONFIG_FILE_SCHEMA))) {
    const rows: string[][] = [];
    const description = text(schema.description);
    if (isGroup(schema)) collect(schema, '', rows);
    else if (name === 'models') collect(schema.additionalProperties as Schema, '', rows);
    else rows.push([`\`${name}\``, values(schema), defaultOf(schema), description]);
    const title = name === 'models' ? '`models.<id>`' : `\`${name}\``;
    const intro = isGroup(schema) || name === 'models' ? `${description}\n\n` : '';
    sections.push(`#### ${title}\n\n${intro}| setting | values | default | |\n| --- | --- | --- | --- |\n${rows.map((row) => `| ${row.join(' | ')} |`).join('\n')}\n`);
  }
  return sections.join('\n');
}

function collect(group: Schema, prefix: string, rows: string[][]): void {
  for (const [name, schema] of Object.entries(properties(group))) {
    const path = `${prefix}${name}`;
    if (isGroup(schema)) {
      collect(schema, `${path}.`, rows);
      continue;
    }
    const items = schema.items as Schema | undefined;
    if (schema.type === 'array' && items !== undefined && isGroup(items)) {
      rows.push([`\`${path}\``, 'a list of objects', '—', text(schema.description)]);
      collect(items, `${path}[].`, rows);
      continue;
    }
    rows.push([`\`${path}\``, values(schema), defaultOf(schema), text(schema.description)]);
  }
}

function properties(schema: Schema): Record<string, Schema> {
  return (schema.properties ?? {}) as Record<string, Schema>;
}

function isGroup(schema: Schema): boolean {
  return schema.type === 'object' && schema.properties !== undefined && schema.additionalProperties === false;
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new Error('a setting of the config schema has no description');
  return value.replaceAll('|', '\\|');
}

function defaultOf(schema: Schema): string {
  return 'default' in schema ? `\`${JSON.stringify(schema.default)}\`` : '—';
}

/** What the setting accepts, in words. */
function values(schema: Schema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ');
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map((branch: Schema) => (branch.type === 'null' ? '`null`' : branch.type === 'object' ? `{${Object.keys(properties(branch)).map((key) => `\`${key}\``).join(', ')}}` : values(branch))).join(' or ');
  if (Array.isArray(schema.type)) return schema.type.map((type: string) => (type === 'null' ? '`null`' : `an ${type}`)).join(' or ');
  switch (schema.type) {
    case 'integer':
    case 'number':
      return range(schema);
    case 'object':
      return 'an object';
    case 'boolean':
      return '`true`, `false`';
    case 'string':
      return typeof schema.pattern === 'string' && schema.pattern.startsWith('^https?://') ? 'an `http(s)://` URL' : 'a string';
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const of = Array.isArray(items.enum) ? items.enum.map((value) => `\`${JSON.stringify(value)}\``).join(', ') : items.type === 'string' ? 'strings' : 'values';
      return `a list of ${of}`;
    }
    default:
      throw new Error(`no words for a setting of type ${String(schema.type)}`);
  }
}

function range(schema: Schema): string {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  const kind = schema.type === 'number' ? 'a number' : 'an integer';
  if (max === undefined || max === INT32_MAX) return min === undefined ? kind : `${kind} ≥ ${number(min)}`;
  return `${number(min ?? 0)} to ${number(max)}`;
}

function number(value: number): string {
  return value.toLocaleString('en-US');
}
