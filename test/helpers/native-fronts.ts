// Test-only fronts for /v1/responses and /v1/messages on the protocol seam: each turn carries the
// request as the client sent it (`native`), for upstreams that speak its API, and a plain chat
// translation (text messages in, text out) for the others. Just enough of each API to tell which
// path a request took; the real endpoints translate far more.
import type { ChatCompletionsDeps } from '../../src/handlers/chat-completions.ts';
import type { Router } from '../../src/http/router.ts';
import { type ProtocolFront, type ProtocolTurn, protocolCompletion, type TurnUsage } from '../../src/protocols/protocol-endpoint.ts';
import type { ChatChunk, StreamTranslator } from '../../src/streaming/stream-translator.ts';
import { nativeRequest } from '../../src/upstream/native-request.ts';
import type { JsonBody } from '../../src/validation/json-body.ts';
import { validateChatRequest } from '../../src/validation/validate-chat-request.ts';
import type { RequestContext } from '../../src/http/request-context.ts';

/** AppOptions.routes: POST /v1/responses and /v1/messages. */
export function nativeFrontRoutes(router: Router, deps: ChatCompletionsDeps): void {
  router.on('POST', '/v1/responses', (ctx) => protocolCompletion(RESPONSES_FRONT, deps, ctx));
  router.on('POST', '/v1/messages', (ctx) => protocolCompletion(MESSAGES_FRONT, deps, ctx));
}

interface ProtocolBody {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly instructions?: unknown;
  readonly system?: unknown;
  readonly input?: unknown;
  readonly messages?: unknown;
  readonly max_output_tokens?: unknown;
  readonly max_tokens?: unknown;
}

/** The chat request a text-only conversation runs as. */
function chatRequest(body: ProtocolBody, system: unknown, items: unknown, maxTokens: unknown) {
  const messages: Array<{ role: string; content: string }> = [];
  if (typeof system === 'string') messages.push({ role: 'system', content: system });
  const list = typeof items === 'string' ? [{ role: 'user', content: items }] : Array.isArray(items) ? items : [];
  for (const item of list as Array<{ role?: unknown; content?: unknown }>) messages.push({ role: String(item.role), content: textOf(item.content) });
  const stream = body.stream === true;
  return validateChatRequest({
    model: body.model,
    messages,
    ...(typeof maxTokens === 'number' ? { max_tokens: maxTokens } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('') : '';
}

function replyText(completion: Record<string, unknown>): string {
  const content = (completion['choices'] as Array<{ message?: { content?: unknown } }> | undefined)?.[0]?.message?.content;
  return typeof content === 'string' ? content : '';
}

function sse(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const RESPONSES_FRONT: ProtocolFront = {
  errorFormat: null,
  credential: (ctx: RequestContext) => ctx.authorization,
  begin(value: unknown, _principal, ctx: RequestContext, source: JsonBody): ProtocolTurn {
    const body = value as ProtocolBody;
    return {
      request: chatRequest(body, body.instructions, body.input, body.max_output_tokens),
      native: nativeRequest('responses', source, ctx),
      reply: (completion, usage) => JSON.stringify(responseOf(String(completion['model']), 'completed', replyText(completion), usage)),
      streamTranslator: () => new ResponsesTranslator(String(body.model)),
    };
  },
};

function responseOf(model: string, status: string, text: string, usage: TurnUsage | null): Record<string, unknown> {
  return {
    id: 'resp_translated', object: 'response', created_at: 1, status, model, error: null, incomplete_details: null,
    output: status === 'completed' ? [{ id: 'msg_translated', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }] : [],
    usage: usage === null ? null : { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens },
  };
}

class ResponsesTranslator implements StreamTranslator {
  readonly #model: string;
  #sequence = 0;
  #text = '';
  #usage: TurnUsage | null = null;

  constructor(model: string) {
    this.#model = model;
  }

  chunk(chunk: ChatChunk): string {
    let out = this.#sequence === 0 ? this.#event('response.created', { response: responseOf(this.#model, 'in_progress', '', null) }) : '';
    if (chunk.usage) this.#usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
    const delta = chunk.choices?.[0]?.delta?.content;
    if (typeof delta === 'string' && delta !== '') {
      this.#text += delta;
      out += this.#event('response.output_text.delta', { item_id: 'msg_translated', output_index: 0, content_index: 0, delta });
    }
    return out;
  }

  done(): string {
    return this.#event('response.completed', { response: responseOf(this.#model, 'completed', this.#text, this.#usage) });
  }

  failed(error: { readonly message: string }): string {
    return this.#event('response.failed', { response: { ...responseOf(this.#model, 'failed', '', null), error: { code: 'server_error', message: error.message } } });
  }

  #event(name: string, data: Record<string, unknown>): string {
    return sse(name, { type: name, sequence_number: this.#sequence++, ...data });
  }
}

export const MESSAGES_FRONT: ProtocolFront = {
  errorFormat: (error) => JSON.stringify({ type: 'error', error: { type: error.code === 'upstream_rate_limited' ? 'rate_limit_error' : 'api_error', message: error.message } }),
  credential: (ctx: RequestContext) => (ctx.anthropic?.apiKey ? `Bearer ${ctx.anthropic.apiKey}` : ctx.authorization),
  begin(value: unknown, _principal, ctx: RequestContext, source: JsonBody): ProtocolTurn {
    const body = value as ProtocolBody;
    return {
      request: chatRequest(body, body.system, body.messages, body.max_tokens),
      native: nativeRequest('messages', source, ctx),
      reply: (completion, usage) => JSON.stringify(messageOf(String(completion['model']), replyText(completion), usage)),
      streamTranslator: () => new MessagesTranslator(String(body.model)),
    };
  },
};

function messageOf(model: string, text: string, usage: TurnUsage): Record<string, unknown> {
  return {
    id: 'msg_translated', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }],
    stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
  };
}

class MessagesTranslator implements StreamTranslator {
  readonly #model: string;
  #started = false;
  #usage: TurnUsage = { promptTokens: 0, completionTokens: 0 };

  constructor(model: string) {
    this.#model = model;
  }

  chunk(chunk: ChatChunk): string {
    let out = '';
    if (!this.#started) {
      this.#started = true;
      const message = { id: 'msg_translated', type: 'message', role: 'assistant', model: this.#model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
      out += sse('message_start', { type: 'message_start', message }) + sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    }
    if (chunk.usage) this.#usage = { promptTokens: chunk.usage.prompt_tokens ?? 0, completionTokens: chunk.usage.completion_tokens ?? 0 };
    const text = chunk.choices?.[0]?.delta?.content;
    if (typeof text === 'string' && text !== '') out += sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    return out;
  }

  done(): string {
    return sse('content_block_stop', { type: 'content_block_stop', index: 0 })
      + sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: this.#usage.completionTokens } })
      + sse('message_stop', { type: 'message_stop' });
  }

  failed(error: { readonly message: string }): string {
    return sse('error', { type: 'error', error: { type: 'api_error', message: error.message } });
  }
}
