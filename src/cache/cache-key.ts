// The key of a cached reply: the account (tenants never share entries), the protocol, the model and
// the request body normalised, so that two requests the model answers the same way share it: fields
// in any order, a parameter at its default the same as one left out, null the same as absent. How
// it is answered (JSON or a stream) is not part of it: an entry is kept in the form it was first
// answered in, and served in the other (cross-form.ts). The Responses and Messages APIs echo more of
// the request in their replies (metadata, the sampling settings): their bodies are keyed as sent,
// only `stream` left out.
import { createHash } from 'node:crypto';

/** Fields that change how a reply is delivered or logged, not what it says. */
const DELIVERY_FIELDS = new Set(['stream', 'stream_options', 'user', 'metadata', 'store', 'service_tier']);

/** OpenAI's documented defaults: a field at its default is the same request as one without it. */
const DEFAULTS: Readonly<Record<string, unknown>> = {
  temperature: 1,
  top_p: 1,
  n: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
  logprobs: false,
  parallel_tool_calls: true,
};

/** The form a request asks its answer in. */
export type CacheForm = 'json' | 'stream' | 'stream+usage';

export interface CacheKeyParts {
  readonly accountId: string;
  readonly protocol: string;
  readonly model: string;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A fixed-length key: the SHA-256 of the parts, base64url. */
export function cacheKey(parts: CacheKeyParts): string {
  const hash = createHash('sha256');
  hash.update(`${parts.accountId}\n${parts.protocol}\n${parts.model}\n`);
  hash.update(parts.protocol === 'chat' ? normalisedBody(parts.body) : formlessBody(parts.body));
  return hash.digest('base64url');
}

/** The body as canonical JSON: top-level defaults and delivery fields dropped, keys sorted at every level. */
export function normalisedBody(body: Readonly<Record<string, unknown>>): string {
  const kept: Record<string, unknown> = {};
  for (const name of Object.keys(body).sort()) {
    const value = body[name];
    if (value === null || value === undefined || DELIVERY_FIELDS.has(name) || DEFAULTS[name] === value) continue;
    // The two names of the reply's token bound mean the same.
    kept[name === 'max_completion_tokens' ? 'max_tokens' : name] = value;
  }
  return canonicalJson(kept);
}

/** The body as canonical JSON, `stream` left out. */
function formlessBody(body: Readonly<Record<string, unknown>>): string {
  const { stream: _stream, ...rest } = body;
  return canonicalJson(rest);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const name of Object.keys(record).sort()) {
    const field = record[name];
    if (field === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(name)}:${canonicalJson(field)}`;
  }
  return `${text}}`;
}
