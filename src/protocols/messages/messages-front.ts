// POST /v1/messages on the chat pipeline: the key from x-api-key or a bearer token, the body checked
// against the Messages schema and translated into a chat request, answered as a Message or a
// Message stream, errors in Anthropic's shape.
import type { Principal } from '../../auth/authenticator.ts';
import type { RequestContext } from '../../http/request-context.ts';
import type { ModelCatalog } from '../../models/model-catalog.ts';
import type { StreamTranslator } from '../../streaming/stream-translator.ts';
import type { ChatRequest } from '../../validation/chat-request.ts';
import { validateChatRequest } from '../../validation/validate-chat-request.ts';
import type { ProtocolFront, ProtocolTurn, TurnCacheKey, TurnUsage } from '../protocol-endpoint.ts';
import { anthropicErrorBody } from './anthropic-errors.ts';
import { inMessagesTerms } from './chat-param-names.ts';
import { anthropicCredential } from './anthropic-credential.ts';
import { messageReply } from './message-reply.ts';
import { MessageStream } from './message-stream.ts';
import type { MessagesBody } from './messages-request.ts';
import { type ModelLimits, toChatBody } from './to-chat-body.ts';
import { validateMessagesRequest } from './validate-messages-request.ts';
import { type NativeRequest, nativeRequest } from '../../upstream/native-request.ts';
import type { JsonBody } from '../../validation/json-body.ts';

export const MESSAGES_PATH = '/v1/messages';
export const COUNT_TOKENS_PATH = '/v1/messages/count_tokens';

export class MessagesFront implements ProtocolFront {
  readonly errorFormat = anthropicErrorBody;
  /** By public id, worked out once. */
  readonly #limits = new Map<string, ModelLimits>();

  constructor(catalog: ModelCatalog) {
    for (const id of catalog.ids) {
      const candidates = catalog.resolve(id)?.candidates ?? [];
      if (candidates.length === 0) continue;
      this.#limits.set(id, {
        maxOutputTokens: Math.min(...candidates.map((model) => model.maxOutputTokens)),
        takesImages: candidates.every((model) => model.supports.contentParts),
        takesTopK: candidates.every((model) => model.target.kind === 'upstreams' && model.target.upstreams.every((upstream) => upstream.api.includes('messages'))),
      });
    }
  }

  credential(ctx: RequestContext): string {
    return anthropicCredential(ctx);
  }

  begin(body: unknown, _principal: Principal, ctx: RequestContext, source: JsonBody): ProtocolTurn {
    return new MessagesTurn(this.chatRequest(body, false), ctx, nativeRequest('messages', source, ctx), cacheKeyOf(body, ctx));
  }

  /** The chat request a Messages body runs as; `forCount`: a count_tokens body (no max_tokens). */
  chatRequest(body: unknown, forCount: boolean): MessagesChatRequest {
    const messages = validateMessagesRequest(body, forCount);
    const chatBody = toChatBody(messages, this.#limits.get(messages.model) ?? null);
    const offered = (chatBody['tools'] ?? []) as readonly { readonly function: { readonly name: string } }[];
    const names = (messages.tools ?? []).map((tool) => tool.name);
    const toolIndexes = offered.map((tool) => names.indexOf(tool.function.name));
    const refine = (error: unknown) => inMessagesTerms(error, toolIndexes);
    try {
      return { messages, chat: validateChatRequest(chatBody), refine };
    } catch (error) {
      throw refine(error);
    }
  }
}

export interface MessagesChatRequest {
  readonly messages: MessagesBody;
  readonly chat: ChatRequest;
  /** An error about the chat request, in the Messages API's names. */
  readonly refine: (error: unknown) => unknown;
}

/**
 * The response cache's key of a Messages request: its body as sent, and its anthropic-beta header
 * (an upstream that speaks Messages may answer differently by it), under a name no body field has.
 */
function cacheKeyOf(body: unknown, ctx: RequestContext): TurnCacheKey {
  const fields = body as Readonly<Record<string, unknown>>;
  const beta = ctx.anthropic?.beta ?? '';
  return { protocol: 'messages', body: beta === '' ? fields : { ...fields, 'anthropic-beta': beta } };
}

class MessagesTurn implements ProtocolTurn {
  readonly request: ChatRequest;
  readonly cacheKey: TurnCacheKey;
  /** The request as sent, for an upstream that speaks Messages. */
  readonly native: NativeRequest;
  readonly refine: (error: unknown) => unknown;
  readonly #model: string;
  readonly #stops: readonly string[];
  readonly #showsThinking: boolean;
  readonly #ctx: RequestContext;

  constructor({ messages, chat, refine }: MessagesChatRequest, ctx: RequestContext, native: NativeRequest, cacheKey: TurnCacheKey) {
    this.request = chat;
    this.cacheKey = cacheKey;
    this.native = native;
    this.refine = refine;
    this.#model = messages.model;
    this.#stops = chat.stop;
    // As Anthropic's models: thinking comes back only when asked for, and not when asked to omit it.
    const thinking = messages.thinking;
    this.#showsThinking = thinking != null && thinking.type !== 'disabled' && thinking.display !== 'omitted';
    this.#ctx = ctx;
  }

  reply(completion: Record<string, unknown>, usage: TurnUsage): string {
    return messageReply(completion, this.#model, this.#stops, usage, this.#showsThinking);
  }

  streamTranslator(): StreamTranslator {
    return new MessageStream(this.#ctx, this.#model, this.#stops, this.#showsThinking);
  }
}
