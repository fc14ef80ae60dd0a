// Builds one OpenAPI operation: its security, body, answers and the error statuses it can give.
import { type ErrorShape, type ErrorStatus, errorResponse } from './error-schemas.ts';

/** Who may call: anyone, any key, an admin key, or a key in either header the Messages API reads. */
export type Access = 'none' | 'key' | 'admin' | 'anthropic';

const SECURITY: Record<Access, readonly Record<string, string[]>[]> = {
  none: [],
  key: [{ apiKey: [] }],
  admin: [{ adminKey: [] }],
  anthropic: [{ apiKey: [] }, { anthropicApiKey: [] }],
};

/** What any request can meet: ambiguous framing, the per-address cap, a failure, an overload or drain. */
const ANY_REQUEST: readonly ErrorStatus[] = [400, 429, 500, 503];
/** What a request with a key can meet besides. */
const WITH_KEY: readonly ErrorStatus[] = [401, 403];
/** What a request with a body can meet besides. */
export const WITH_BODY: readonly ErrorStatus[] = [408, 413];
/** What a request that runs a model can meet besides: an unknown model, a failing or slow model server. */
export const RUNS_MODEL: readonly ErrorStatus[] = [404, 502, 504];

export interface OperationSpec {
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly access: Access;
  readonly description?: string;
  readonly parameters?: readonly Record<string, unknown>[];
  /** A component schema's name. */
  readonly body?: string;
  /** Success answers by status. */
  readonly answers: Readonly<Record<string, Record<string, unknown>>>;
  /** Error statuses beyond those every request (and every request with a key or a body) can meet. */
  readonly errors?: readonly ErrorStatus[];
  readonly errorShape?: ErrorShape;
  /** Its success carries the key's x-ratelimit-* headers (the endpoints that run a model). */
  readonly rateLimitHeaders?: boolean;
}

const REQUEST_ID = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
const RATE_LIMITS = Object.fromEntries(
  ['limit-requests', 'remaining-requests', 'reset-requests', 'limit-tokens', 'remaining-tokens', 'reset-tokens']
    .map((name) => [`x-ratelimit-${name}`, { $ref: `#/components/headers/RateLimit-${name}` }]),
);

/** Every answer carries x-request-id; a success of an endpoint that runs a model, the rate limits too. */
function withHeaders(answer: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...answer, headers: { ...(answer['headers'] as Record<string, unknown> | undefined), ...REQUEST_ID, ...extra } };
}

export function operation(spec: OperationSpec): Record<string, unknown> {
  const statuses = new Set<ErrorStatus>([
    ...ANY_REQUEST,
    ...(spec.access === 'none' ? [] : WITH_KEY),
    ...(spec.body === undefined ? [] : WITH_BODY),
    ...(spec.errors ?? []),
  ]);
  const errors = Object.fromEntries([...statuses].sort((a, b) => a - b).map((status) => [String(status), withHeaders(errorResponse(status, spec.errorShape ?? 'api'), {})]));
  const answers = Object.fromEntries(Object.entries(spec.answers).map(([status, answer]) => [status, withHeaders(answer, spec.rateLimitHeaders === true ? RATE_LIMITS : {})]));
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [spec.tag],
    security: SECURITY[spec.access],
    ...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
    ...(spec.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: ref(spec.body) } } } }),
    responses: { ...answers, ...errors },
  };
}

export function ref(name: string): Record<string, string> {
  return { $ref: `#/components/schemas/${name}` };
}

export function json(description: string, schema: string): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: ref(schema) } } };
}

/**
 * A JSON answer, or with `stream: true` a server-sent event stream. OpenAPI 3.1 has no schema for
 * one event, so `x-event-data` names the schema every event's `data:` validates against.
 */
export function jsonOrStream(description: string, schema: string, eventData: string): Record<string, unknown> {
  return {
    description,
    content: {
      'application/json': { schema: ref(schema) },
      'text/event-stream': { schema: { type: 'string' }, 'x-event-data': ref(eventData) },
    },
  };
}

export function pathId(name: string, description: string): Record<string, unknown> {
  return { name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1 } };
}

export function query(name: string, description: string, schema: Record<string, unknown> = { type: 'string' }): Record<string, unknown> {
  return { name, in: 'query', required: false, description, schema };
}
