// Checks an answer of the service against its OpenAPI document: the operation exists, the status
// is one it documents, the content type is one the status lists, and the body (or every event of a
// stream) validates against that content's schema.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/openapi-document.ts';

export interface Answer {
  readonly method: string;
  /** Without the query. */
  readonly path: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  /** The answer's headers by (lower-case) name; without them, headers are not checked. */
  readonly header?: (name: string) => string | null;
}

/** `checked`: the answer matches the document; `undocumented`: no operation describes the request. */
export type Verdict = { readonly kind: 'checked' | 'undocumented' } | { readonly kind: 'mismatch'; readonly problem: string };

type Media = { schema?: unknown; 'x-event-data'?: unknown };
type Header = { required?: boolean; schema: { type?: string } };
type Operation = { responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, Header | { $ref: string }> }> };

const BASE = 'https://munja.invalid/openapi';
const document = openApiDocument();
const paths = document['paths'] as Record<string, Record<string, Operation>>;
const headerComponents = (document['components'] as { headers: Record<string, Header> }).headers;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);
ajv.addSchema(JSON.parse(JSON.stringify({ $id: BASE, $defs: (document['components'] as { schemas: unknown }).schemas }).replaceAll('#/components/schemas/', '#/$defs/')));
const validators = new Map<unknown, ValidateFunction>();

function validatorOf(schema: unknown): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${BASE}#/$defs/`)) as object);
    validators.set(schema, validate);
  }
  return validate;
}

const templates = Object.keys(paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replaceAll(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The document's path template that `path` is an instance of (an exact path first). */
export function templateOf(path: string): string | undefined {
  if (Object.hasOwn(paths, path)) return path;
  return templates.find(({ pattern }) => pattern.test(path))?.template;
}

export function checkAnswer(answer: Answer): Verdict {
  const template = templateOf(answer.path);
  const operation = template === undefined ? undefined : paths[template]![answer.method.toLowerCase()];
  if (operation === undefined) return { kind: 'undocumented' };
  const where = `${answer.method} ${answer.path} → ${answer.status}`;
  const documented = operation.responses[String(answer.status)];
  if (documented === undefined) return mismatch(`${where}: status not documented (${Object.keys(operation.responses).join(', ')})`, answer);
  const headerProblem = answer.header === undefined ? null : checkHeaders(documented.headers ?? {}, answer.header);
  if (headerProblem !== null) return mismatch(`${where}: ${headerProblem}`, answer);
  if (documented.content === undefined) {
    return answer.body === '' ? { kind: 'checked' } : mismatch(`${where}: a body where none is documented`, answer);
  }
  const mediaType = answer.contentType.split(';')[0]!.trim().toLowerCase();
  const media = documented.content[mediaType];
  if (media === undefined) return mismatch(`${where}: content type ${JSON.stringify(mediaType)} not documented (${Object.keys(documented.content).join(', ')})`, answer);
  if (mediaType === 'text/event-stream') return checkEvents(where, media['x-event-data'], answer);
  let value: unknown;
  try {
    value = JSON.parse(answer.body);
  } catch {
    return mismatch(`${where}: the body is not JSON`, answer);
  }
  return checkValue(where, media.schema, value, answer);
}

function checkHeaders(documented: Record<string, Header | { $ref: string }>, header: (name: string) => string | null): string | null {
  for (const [name, declared] of Object.entries(documented)) {
    const spec = '$ref' in declared ? headerComponents[declared.$ref.slice('#/components/headers/'.length)]! : declared;
    const value = header(name.toLowerCase());
    if (value === null) {
      if (spec.required === true) return `header ${name} missing`;
      continue;
    }
    const validate = validatorOf(spec.schema);
    if (!validate(spec.schema.type === 'integer' ? Number(value) : value)) return `header ${name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`;
  }
  return null;
}

function checkEvents(where: string, schema: unknown, answer: Answer): Verdict {
  if (schema === undefined) return mismatch(`${where}: no x-event-data schema`, answer);
  for (const block of answer.body.split(/\n\n/)) {
    const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
    if (data.length === 0) continue;
    const text = data.join('\n');
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON (chat's `[DONE]`): the text itself is checked.
    }
    const verdict = checkValue(`${where} event`, schema, value, answer);
    if (verdict.kind !== 'checked') return verdict;
    // A named event (Responses, Messages) is named for its data's type.
    const name = block.split('\n').find((line) => line.startsWith('event:'))?.slice(6).trim();
    const type = (value as { type?: unknown } | null)?.type;
    if (name !== undefined && typeof type === 'string' && name !== type) return mismatch(`${where}: event ${name} carries data of type ${type}`, answer);
  }
  return { kind: 'checked' };
}

function checkValue(where: string, schema: unknown, value: unknown, answer: Answer): Verdict {
  const validate = validatorOf(schema);
  if (validate(value)) return { kind: 'checked' };
  return mismatch(`${where}: ${ajv.errorsText(validate.errors)}; ${JSON.stringify(value).slice(0, 300)}`, answer);
}

function mismatch(problem: string, answer: Answer): Verdict {
  return { kind: 'mismatch', problem: answer.body === '' ? problem : `${problem} (body starts ${JSON.stringify(answer.body.slice(0, 200))})` };
}
