// What ties a request to the conversation it continues, for prefix affinity: the client's
// x-munja-session header, else its `prompt_cache_key`, else its `user`, else a hash of the prompt's
// first blocks (the first message and the first user message, each up to PREFIX_CHARS), which the
// turns of one conversation share. The header comes first: an agent or a proxy in front can name the
// session without touching the body.
import type { ChatRequest } from '../validation/chat-request.ts';

const PREFIX_CHARS = 1024;
const CHARS_PER_TOKEN = 4;
/** Longer client keys are hashed, so that the affinity table's entries stay small. */
const MAX_KEY_CHARS = 128;

/** `session`: the x-munja-session header, '' without one. */
export function conversationKey(request: ChatRequest, session = ''): string | null {
  if (session.length > 0) return bounded('s', session);
  const { body, messages } = request;
  const cacheKey = body.prompt_cache_key;
  if (typeof cacheKey === 'string' && cacheKey.length > 0) return bounded('k', cacheKey);
  if (typeof body.user === 'string' && body.user.length > 0) return bounded('u', body.user);
  if (messages.length === 0) return null;
  let hash = fnv1a(FNV_OFFSET, messages[0]!.content);
  for (let i = 1; i < messages.length; i++) {
    if (messages[i]!.role !== 'user') continue;
    hash = fnv1a(hash, messages[i]!.content);
    break;
  }
  return `p:${hash.toString(36)}`;
}

/**
 * The prompt tokens of the request's leading system (or developer) message, estimated at 4 characters
 * a token: the instructions every session of a client starts with, which any engine that served
 * one of them holds in its prefix cache. Other requests' prompts share nothing known: 0.
 */
export function sharedPrefixTokens(request: ChatRequest): number {
  const first = request.messages[0];
  return first !== undefined && (first.role === 'system' || first.role === 'developer') ? Math.ceil(first.content.length / CHARS_PER_TOKEN) : 0;
}

/** A hash of the request's leading system (or developer) message (its first PREFIX_CHARS and its length); 0 without one. */
export function sharedPrefixHash(request: ChatRequest): number {
  const first = request.messages[0];
  if (first === undefined || (first.role !== 'system' && first.role !== 'developer')) return 0;
  return (fnv1a(FNV_OFFSET, first.content) ^ first.content.length) >>> 0 || 1;
}

function bounded(kind: string, key: string): string {
  return key.length <= MAX_KEY_CHARS ? `${kind}:${key}` : `${kind}#${fnv1a(FNV_OFFSET, key, key.length).toString(36)}:${key.length}`;
}

const FNV_OFFSET = 0x811c9dc5;

/** 32-bit FNV-1a over the first `limit` UTF-16 units of `text`, continuing from `hash`. */
export function fnv1a(hash: number, text: string, limit = PREFIX_CHARS): number {
  const end = Math.min(text.length, limit);
  for (let i = 0; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
