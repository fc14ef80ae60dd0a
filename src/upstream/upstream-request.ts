// The request sent upstream: the client's body with the upstream's model name, and usage always
// requested on streams (so accounting works even when the client did not ask for it). The body is
// the client's own text with those values spliced in; a body without its text (made from MCP's
// arguments) is serialised.
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../config/config-types.ts';
import type { ChatRequestBody } from '../validation/chat-request.ts';
import type { JsonBody } from '../validation/json-body.ts';
import type { UpstreamCall } from './upstream-exchange.ts';

/** Headers as name, value, name, value…: undici copies them from a list without listing an object's keys. */
export interface UpstreamRequest extends Dispatcher.DispatchOptions {
  readonly headers: string[];
}

/** `Bearer <key>` per upstream, spelled once rather than on every request. */
const bearers = new WeakMap<UpstreamConfig, string>();

export function buildUpstreamRequest(call: UpstreamCall): UpstreamRequest {
  const { upstream, body, timeouts, client } = call;
  const stream = call.streamTo !== null;
  const accept = stream ? 'text/event-stream' : 'application/json';
  const headers = upstream.apiKey === null
    ? ['content-type', 'application/json', 'accept', accept, 'x-request-id', client.requestId]
    : ['content-type', 'application/json', 'accept', accept, 'x-request-id', client.requestId, 'authorization', bearer(upstream, upstream.apiKey)];
  return {
    path: upstream.chatPath,
    method: 'POST',
    headers,
    body: (call.source === null ? null : splicedBody(call.source, body, upstream, stream)) ?? serialisedBody(body, upstream.model, stream),
    headersTimeout: stream ? timeouts.firstByteTimeoutMs : timeouts.responseTimeoutMs,
    bodyTimeout: timeouts.idleTimeoutMs,
  };
}

const USAGE_OPTIONS = '{"include_usage":true}';
const ADDED_USAGE_OPTIONS = `,"stream_options":${USAGE_OPTIONS}`;

/**
 * The client's text with the upstream's model as `model` and, on a stream, `{"include_usage":true}`
 * as `stream_options` (added when absent), as UTF-8; null when the text lacks a span it needs (a
 * `stream_options` of null): the body is serialised instead.
 */
function splicedBody(source: JsonBody, body: ChatRequestBody, upstream: UpstreamConfig, stream: boolean): Buffer | null {
  const { text, modelStart, modelEnd } = source;
  if (modelStart === -1) return null;
  const model = quotedModel(upstream);
  if (!stream) return utf8Of(text.slice(0, modelStart), model, text.slice(modelEnd));
  const { streamOptionsStart, streamOptionsEnd } = source;
  if (streamOptionsStart === -1) {
    if (body.stream_options !== undefined) return null;
    const end = source.closingBrace;
    return utf8Of(text.slice(0, modelStart), model, text.slice(modelEnd, end), ADDED_USAGE_OPTIONS, text.slice(end));
  }
  // The two spans in the order they come.
  if (modelStart < streamOptionsStart) {
    return utf8Of(text.slice(0, modelStart), model, text.slice(modelEnd, streamOptionsStart), USAGE_OPTIONS, text.slice(streamOptionsEnd));
  }
  return utf8Of(text.slice(0, streamOptionsStart), USAGE_OPTIONS, text.slice(streamOptionsEnd, modelStart), model, text.slice(modelEnd));
}

/**
 * The pieces one after the other as UTF-8: what undici would make of their concatenation, without
 * the joined string (a slice of a long text is a view of it; the join would be a copy, then
 * encoded again).
 */
export function utf8Of(a: string, b: string, c: string, d = '', e = ''): Buffer {
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(a) + Buffer.byteLength(b) + Buffer.byteLength(c) + Buffer.byteLength(d) + Buffer.byteLength(e));
  let at = bytes.write(a, 0);
  at += bytes.write(b, at);
  at += bytes.write(c, at);
  if (d !== '') at += bytes.write(d, at);
  if (e !== '') bytes.write(e, at);
  return bytes;
}

function serialisedBody(body: ChatRequestBody, model: string, stream: boolean): string {
  return JSON.stringify(stream ? { ...body, model, stream_options: { include_usage: true } } : { ...body, model });
}

/** The upstream's model as a JSON string, spelled once per upstream. */
const quotedModels = new WeakMap<UpstreamConfig, string>();

export function quotedModel(upstream: UpstreamConfig): string {
  let quoted = quotedModels.get(upstream);
  if (quoted === undefined) quotedModels.set(upstream, (quoted = JSON.stringify(upstream.model)));
  return quoted;
}

export function bearer(upstream: UpstreamConfig, apiKey: string): string {
  let value = bearers.get(upstream);
  if (value === undefined) {
    value = `Bearer ${apiKey}`;
    bearers.set(upstream, value);
  }
  return value;
}
