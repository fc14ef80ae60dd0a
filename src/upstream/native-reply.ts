// The JSON answer of an upstream that speaks the client's API (a Responses `response`, a Messages
// `message`), checked and passed on as the server wrote it: only its `model` becomes the public id.
import { type ValueSpan, valueSpan } from './json-value-span.ts';
import type { NativeApi } from './native-request.ts';
import { nativeUsage } from './native-usage.ts';

export interface NativeReply {
  /** The answer to send, `model` set to the public id. */
  readonly bytes: Buffer;
  /** The upstream's counts; null when it reported none (ours then stand). */
  readonly promptTokens: number | null;
  readonly completionTokens: number;
  /** Of the prompt tokens, those the server read from its cache. */
  readonly cachedPromptTokens: number;
}

const QUOTE = 0x22;

// What each API's answer is: `object: "response"`, `type: "message"`.
const KIND = { responses: ['object', 'response'], messages: ['type', 'message'] } as const;

/** The reply, or null when the bytes are not such an answer. */
export function nativeReply(api: NativeApi, bytes: Buffer, publicModel: string): NativeReply | null {
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const [field, kind] = KIND[api];
  if (answer === null || typeof answer !== 'object' || answer[field] !== kind) return null;
  const usage = nativeUsage(api, answer['usage']);
  return { bytes: withPublicModel(bytes, bytes.toString('latin1'), ROOT_MODEL, publicModel) ?? bytes, promptTokens: usage?.promptTokens ?? null, completionTokens: usage?.completionTokens ?? 0, cachedPromptTokens: usage?.cachedPromptTokens ?? 0 };
}

const ROOT_MODEL = ['model'];

function withPublicModel(bytes: Buffer, text: string, path: readonly string[], publicModel: string): Buffer | null {
  const span = modelToReplace(bytes, text, path, publicModel);
  return span === null ? null : Buffer.concat([bytes.subarray(0, span.start), quotedModel(publicModel), bytes.subarray(span.end)]);
}

// Public model ids come from the configuration: a bounded set, each quoted once.
const quotedModels = new Map<string, Buffer>();

/** The public id as a JSON string, in bytes. */
export function quotedModel(publicModel: string): Buffer {
  let quoted = quotedModels.get(publicModel);
  if (quoted === undefined) quotedModels.set(publicModel, (quoted = Buffer.from(JSON.stringify(publicModel))));
  return quoted;
}

/**
 * Where the string at `path` lies in `bytes` (JSON that parses, `text` its latin1 reading, the
 * root object at or after `from`); null when there is no string there, or it is the public id already.
 */
export function modelToReplace(bytes: Buffer, text: string, path: readonly string[], publicModel: string, from = 0): ValueSpan | null {
  const span = valueSpan(text, path, from);
  if (span === null || text.charCodeAt(span.start) !== QUOTE) return null;
  const quoted = quotedModel(publicModel);
  return span.end - span.start === quoted.length && bytes.subarray(span.start, span.end).equals(quoted) ? null : span;
}
