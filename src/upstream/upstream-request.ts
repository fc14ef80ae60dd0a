// The request sent upstream: the client's body with the upstream's model name, and usage always
// requested on streams (so accounting works even when the client did not ask for it).
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../config/config-types.ts';
import type { ChatRequestBody } from '../validation/chat-request.ts';
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
    body: stream ? JSON.stringify({ ...body, model: upstream.model, stream_options: { include_usage: true } }) : jsonWithModel(body, upstream.model),
    headersTimeout: stream ? timeouts.firstByteTimeoutMs : timeouts.responseTimeoutMs,
    bodyTimeout: timeouts.idleTimeoutMs,
  };
}

/**
 * The body as JSON, its model replaced in place, without a copy of the whole body: the model is
 * swapped in for the serialisation and back (nothing else runs in between).
 */
function jsonWithModel(body: ChatRequestBody, model: string): string {
  const named = body as { model: string };
  const own = named.model;
  named.model = model;
  try {
    return JSON.stringify(body);
  } finally {
    named.model = own;
  }
}

function bearer(upstream: UpstreamConfig, apiKey: string): string {
  let value = bearers.get(upstream);
  if (value === undefined) {
    value = `Bearer ${apiKey}`;
    bearers.set(upstream, value);
  }
  return value;
}
