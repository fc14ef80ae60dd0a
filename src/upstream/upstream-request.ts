// The request sent upstream: the client's body with the upstream's model name, and usage always
// requested on streams (so accounting works even when the client did not ask for it).
import type { Dispatcher } from 'undici';
import type { UpstreamCall } from './upstream-exchange.ts';

export function buildUpstreamRequest(call: UpstreamCall): Dispatcher.DispatchOptions {
  const { upstream, body, timeouts, client } = call;
  const stream = call.streamTo !== null;
  const payload: Record<string, unknown> = { ...body, model: upstream.model };
  if (stream) payload.stream_options = { include_usage: true };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    'x-request-id': client.requestId,
  };
  if (upstream.apiKey !== null) headers.authorization = `Bearer ${upstream.apiKey}`;
  return {
    path: upstream.chatPath,
    method: 'POST',
    headers,
    body: JSON.stringify(payload),
    headersTimeout: stream ? timeouts.firstByteTimeoutMs : timeouts.responseTimeoutMs,
    bodyTimeout: timeouts.idleTimeoutMs,
  };
}
