// A request of another API (OpenAI's Responses, Anthropic's Messages) relayed to an upstream that
// speaks it: the client's body as it was sent, with only `model` set to the upstream's name, and
// the headers that API takes. Nothing is translated: what a translation would lose (reasoning
// items, server-side tools, cache control) reaches the server.
import type { RequestContext } from '../http/request-context.ts';
import type { JsonBody } from '../validation/json-body.ts';
import type { UpstreamCall } from './upstream-exchange.ts';
import { bearer, quotedModel, type UpstreamRequest, utf8Of } from './upstream-request.ts';

export type NativeApi = 'responses' | 'messages';

export interface NativeRequest {
  readonly api: NativeApi;
  /** The client's body as parsed (the JSON text is in `source` when available). */
  readonly body: Readonly<Record<string, unknown>>;
  readonly source: JsonBody | null;
  /** Client headers to pass on as they are (anthropic-version, anthropic-beta): name, value, name, value… */
  readonly headers: readonly string[];
}

/** What Anthropic's API requires when a client sent no version of its own. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** A protocol endpoint's request as it came: its body's text, and for Messages the client's Anthropic headers. */
export function nativeRequest(api: NativeApi, source: JsonBody, ctx: RequestContext): NativeRequest {
  const headers: string[] = [];
  const anthropic = ctx.anthropic;
  if (api === 'messages' && anthropic !== null) {
    if (anthropic.version !== '') headers.push('anthropic-version', anthropic.version);
    if (anthropic.beta !== '') headers.push('anthropic-beta', anthropic.beta);
  }
  return { api, body: source.value as Readonly<Record<string, unknown>>, source, headers };
}

/**
 * The upstream request for `native`. The key goes as a bearer token; for Messages also as
 * `x-api-key`, which Anthropic reads (servers that take a bearer token, such as vLLM, ignore it).
 */
export function buildNativeRequest(call: UpstreamCall, native: NativeRequest): UpstreamRequest {
  const { upstream, timeouts, client } = call;
  const stream = call.streamTo !== null;
  const messages = native.api === 'messages';
  const headers = ['content-type', 'application/json', 'accept', stream ? 'text/event-stream' : 'application/json', 'x-request-id', client.requestId];
  if (upstream.apiKey !== null) {
    headers.push('authorization', bearer(upstream, upstream.apiKey));
    if (messages) headers.push('x-api-key', upstream.apiKey);
  }
  let versioned = false;
  const passed = native.headers;
  for (let index = 0; index < passed.length; index += 2) {
    const name = passed[index]!;
    if (name === 'anthropic-version') versioned = true;
    headers.push(name, passed[index + 1]!);
  }
  if (messages && !versioned) headers.push('anthropic-version', DEFAULT_ANTHROPIC_VERSION);
  const { source } = native;
  return {
    path: messages ? upstream.messagesPath : upstream.responsesPath,
    method: 'POST',
    headers,
    body: source !== null && source.modelStart !== -1
      ? utf8Of(source.text.slice(0, source.modelStart), quotedModel(upstream), source.text.slice(source.modelEnd))
      : JSON.stringify({ ...native.body, model: upstream.model }),
    headersTimeout: stream ? timeouts.firstByteTimeoutMs : timeouts.responseTimeoutMs,
    bodyTimeout: timeouts.idleTimeoutMs,
  };
}
