// A chat completion kept in one form served in another: a stored stream as a JSON completion (its
// deltas joined: content, reasoning, tool calls, finish_reason, and the usage chunk's usage), a
// stored JSON completion as a stream (a role chunk, a chunk per text field, one per tool call, the
// finish chunk, the usage chunk when asked, [DONE]), a stream with its usage chunk as one without
// it. The content is the same either way; the result is replayed with a fresh id like any entry.
// Another protocol's stream (a Response's, a Message's) answers a JSON request too (stream-to-json.ts);
// its JSON reply answers only a JSON request.
import type { CacheForm } from './cache-key.ts';
import { cachedReply, type CachedReply } from './cached-reply.ts';
import { jsonOfStream } from './stream-to-json.ts';

/** Delta fields joined otherwise than text (every other string field is text, joined as it comes). */
const ROLE = 'role';
const TOOL_CALLS = 'tool_calls';
const DONE = 'data: [DONE]\n\n';
const EVENT_END = '\n\n';

interface ToolCall {
  id?: string;
  type?: string;
  function: { name?: string; arguments: string };
}

interface Choice {
  message: Record<string, unknown>;
  toolCalls: ToolCall[];
  finishReason: unknown;
  /** Fields the finish chunk carries beside finish_reason (vLLM's stop_reason). */
  extra: Record<string, unknown>;
}

/**
 * `reply` in the form a request asks for; undefined when it cannot be given whole from it (a stream
 * without its usage for a request that needs usage, a reply with logprobs, another protocol's JSON
 * reply for a stream, a reply that does not read as expected), so that the request is a miss and
 * its reply replaces the entry.
 */
export function inForm(reply: CachedReply, wanted: CacheForm, protocol: string): CachedReply | undefined {
  const needsUsage = wanted !== 'stream';
  const wantsStream = wanted !== 'json';
  if (servesAsKept(reply, protocol, wantsStream, needsUsage)) return reply;
  try {
    const bytes = protocol === 'chat' ? chatInForm(reply, wantsStream, needsUsage) : reply.form === 'stream' ? jsonOfStream(protocol, reply.bytes.toString()) : undefined;
    return bytes === undefined ? undefined : cachedReply(wantsStream ? 'stream' : 'json', Buffer.from(bytes), reply.accountId, reply.keyId);
  } catch {
    return undefined;
  }
}

/** The reply as it was kept is what the request asks for: its form, and for a chat stream its usage chunk or none. */
function servesAsKept(reply: CachedReply, protocol: string, wantsStream: boolean, needsUsage: boolean): boolean {
  if (reply.form === 'json') return !wantsStream;
  return wantsStream && (protocol !== 'chat' || reply.usage === needsUsage);
}

/** A chat completion's reply rebuilt in the other form, or without its usage chunk. */
function chatInForm(reply: CachedReply, wantsStream: boolean, needsUsage: boolean): string | undefined {
  if (needsUsage && !reply.usage) return undefined;
  // Logprobs are not split or joined.
  if (reply.bytes.includes('"logprobs":{')) return undefined;
  if (reply.form === 'stream') return wantsStream ? withoutUsageChunk(reply.bytes.toString()) : JSON.stringify(completionOf(reply.bytes.toString()));
  return streamOf(JSON.parse(reply.bytes.toString()) as Record<string, unknown>, needsUsage);
}

/** The payloads of a chat stream's `data:` events, [DONE] left out. */
function payloads(stream: string): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  for (const event of stream.split(EVENT_END)) {
    for (const line of event.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data !== '[DONE]' && data !== '') found.push(JSON.parse(data) as Record<string, unknown>);
    }
  }
  return found;
}

/** The stream's events but its usage chunk (the one with no choices), as they were. */
function withoutUsageChunk(stream: string): string {
  let kept = '';
  for (const event of stream.split(EVENT_END)) {
    if (event === '') continue;
    const data = event.startsWith('data:') ? event.slice(5).trim() : '';
    if (data !== '[DONE]' && data.startsWith('{')) {
      const chunk = JSON.parse(data) as Record<string, unknown>;
      if (Array.isArray(chunk.choices) && chunk.choices.length === 0 && isObject(chunk.usage)) continue;
    }
    kept += event + EVENT_END;
  }
  return kept;
}

/** A chat.completion with the stream's deltas joined, choice by choice. */
export function completionOf(stream: string): Record<string, unknown> {
  const chunks = payloads(stream);
  const first = chunks[0] ?? {};
  const choices = new Map<number, Choice>();
  let usage: unknown = null;
  for (const chunk of chunks) {
    if (isObject(chunk.usage)) usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) continue;
    for (const delta of chunk.choices as Array<Record<string, unknown>>) {
      const index = typeof delta.index === 'number' ? delta.index : 0;
      let choice = choices.get(index);
      if (choice === undefined) {
        choice = { message: { role: 'assistant' }, toolCalls: [], finishReason: null, extra: {} };
        choices.set(index, choice);
      }
      join(choice, delta);
    }
  }
  const completion: Record<string, unknown> = { id: first.id, object: 'chat.completion', created: first.created, model: first.model };
  completion.choices = [...choices.entries()].sort(([a], [b]) => a - b).map(([index, choice]) => {
    const message = choice.message;
    if (choice.toolCalls.length > 0) message.tool_calls = choice.toolCalls.map((call) => ({ id: call.id, type: call.type ?? 'function', function: call.function }));
    if (message.content === undefined || (message.content === '' && choice.toolCalls.length > 0)) message.content = null;
    if (message.refusal === undefined) message.refusal = null;
    return { index, message, logprobs: null, finish_reason: choice.finishReason, ...choice.extra };
  });
  completion.usage = usage;
  if (first.system_fingerprint !== undefined) completion.system_fingerprint = first.system_fingerprint;
  if (first.service_tier !== undefined) completion.service_tier = first.service_tier;
  return completion;
}

function join(choice: Choice, chunkChoice: Record<string, unknown>): void {
  const delta = isObject(chunkChoice.delta) ? chunkChoice.delta : {};
  for (const [name, value] of Object.entries(delta)) {
    if (name === ROLE) {
      if (typeof value === 'string') choice.message.role = value;
    } else if (name === TOOL_CALLS && Array.isArray(value)) {
      for (const part of value as Array<Record<string, unknown>>) joinToolCall(choice.toolCalls, part);
    } else if (typeof value === 'string') {
      const before = choice.message[name];
      choice.message[name] = typeof before === 'string' ? before + value : value;
    } else if (value !== null && choice.message[name] === undefined) {
      choice.message[name] = value;
    }
  }
  if (chunkChoice.finish_reason !== null && chunkChoice.finish_reason !== undefined) {
    choice.finishReason = chunkChoice.finish_reason;
    for (const [name, value] of Object.entries(chunkChoice)) {
      if (name !== 'index' && name !== 'delta' && name !== 'logprobs' && name !== 'finish_reason') choice.extra[name] = value;
    }
  }
}

function joinToolCall(calls: ToolCall[], part: Record<string, unknown>): void {
  const at = typeof part.index === 'number' ? part.index : calls.length;
  const call = calls[at] ?? (calls[at] = { function: { arguments: '' } });
  if (typeof part.id === 'string') call.id = part.id;
  if (typeof part.type === 'string') call.type = part.type;
  const fn = isObject(part.function) ? part.function : {};
  if (typeof fn.name === 'string') call.function.name = (call.function.name ?? '') + fn.name;
  if (typeof fn.arguments === 'string') call.function.arguments += fn.arguments;
}

/** The events of a stream that says what `completion` says. */
export function streamOf(completion: Record<string, unknown>, includeUsage: boolean): string {
  const head: Record<string, unknown> = {
    id: completion.id, object: 'chat.completion.chunk', created: completion.created, model: completion.model,
    system_fingerprint: completion.system_fingerprint ?? null,
  };
  if (completion.service_tier !== undefined) head.service_tier = completion.service_tier;
  const event = (choices: unknown[], usage?: unknown) => `data: ${JSON.stringify({ ...head, choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`;
  const delta = (index: number, fields: Record<string, unknown>) => event([{ index, delta: fields, logprobs: null, finish_reason: null }]);
  let stream = '';
  const choices = Array.isArray(completion.choices) ? completion.choices as Array<Record<string, unknown>> : [];
  for (const choice of choices) {
    const index = typeof choice.index === 'number' ? choice.index : 0;
    const message = isObject(choice.message) ? choice.message : {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls as Array<Record<string, unknown>> : [];
    stream += delta(index, { role: message.role ?? 'assistant', content: calls.length > 0 && !message.content ? null : '' });
    for (const [name, value] of Object.entries(message)) {
      if (name === ROLE || name === TOOL_CALLS || name === 'content' || value === null || value === '') continue;
      stream += delta(index, { [name]: value });
    }
    if (typeof message.content === 'string' && message.content !== '') stream += delta(index, { content: message.content });
    calls.forEach((call, at) => {
      stream += delta(index, { tool_calls: [{ index: at, ...call }] });
    });
    const { index: _index, message: _message, logprobs: _logprobs, finish_reason: finishReason, ...extra } = choice;
    stream += event([{ index, delta: {}, logprobs: null, finish_reason: finishReason, ...extra }]);
  }
  if (includeUsage) stream += event([], completion.usage);
  return stream + DONE;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
