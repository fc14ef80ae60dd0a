// POST /v1/responses: the Responses API on the chat pipeline (protocol-endpoint.ts). The request is
// translated into a chat request; its reply and its stream are translated back into a Response,
// which is stored (store: true, the default) for previous_response_id and GET /v1/responses/{id}.
import type { Logger } from 'pino';
import type { Principal } from '../../auth/authenticator.ts';
import type { RequestContext } from '../../http/request-context.ts';
import { randomId } from '../../streaming/completion-id.ts';
import { nativeRequest } from '../../upstream/native-request.ts';
import type { ChatRequest } from '../../validation/chat-request.ts';
import type { JsonBody } from '../../validation/json-body.ts';
import { validateChatRequest } from '../../validation/validate-chat-request.ts';
import type { ProtocolFront, ProtocolTurn, TurnUsage } from '../protocol-endpoint.ts';
import { inResponsesTerms } from './chat-param-names.ts';
import { inputItemsOf, outputMessages } from './conversation-items.ts';
import { type OutputItem, responseFrame, responseJson, responseObject } from './response-object.ts';
import { replyState } from './responses-reply.ts';
import { parseResponsesBody, type ResponsesBody, type TranslatedMessage, translateResponsesRequest } from './responses-request.ts';
import { ResponsesStream } from './responses-stream.ts';
import { responseNotFound, type StoredResponses } from './stored-responses.ts';

/** Names the tools taken out of a request's offer (built-in tools this service cannot provide). */
export const OMITTED_TOOLS_HEADER = 'x-munja-omitted-tools';

export function responsesFront(stored: StoredResponses, logger: Logger): ProtocolFront {
  return {
    errorFormat: null,
    credential: (ctx: RequestContext) => ctx.authorization,
    begin: (value: unknown, principal: Principal, ctx: RequestContext, source: JsonBody) => beginTurn(value, principal, ctx, source, stored, logger),
  };
}

/** A turn that neither continues nor stores a conversation is made at once; any other reads the store first. */
function beginTurn(value: unknown, principal: Principal, ctx: RequestContext, source: JsonBody, stored: StoredResponses, logger: Logger): ProtocolTurn | Promise<ProtocolTurn> {
  const body = parseResponsesBody(value);
  const store = body.store ?? true;
  const previousId = body.previous_response_id ?? null;
  if (!store && previousId === null) return turnOf(body, [], principal, ctx, source, stored, logger);
  return (async () => {
    let history: readonly TranslatedMessage[] = [];
    if (previousId !== null) {
      const previous = await stored.find(principal.accountId, previousId);
      if (previous === undefined) throw responseNotFound(previousId, 'previous_response_id');
      history = previous.messages;
    }
    if (store) await stored.checkRoom(principal.accountId);
    return turnOf(body, history, principal, ctx, source, stored, logger);
  })();
}

function turnOf(body: ResponsesBody, history: readonly TranslatedMessage[], principal: Principal, ctx: RequestContext, source: JsonBody, stored: StoredResponses, logger: Logger): ProtocolTurn {
  const store = body.store ?? true;
  const previousId = body.previous_response_id ?? null;
  const translated = translateResponsesRequest(body, history);
  const refine = (error: unknown) => inResponsesTerms(error, translated.toolIndexes);
  let request: ChatRequest;
  try {
    request = validateChatRequest(translated.chatBody);
  } catch (error) {
    throw refine(error);
  }
  const frame = responseFrame(randomId('resp_'), Math.floor(Date.now() / 1000), body.model, body, store);
  const { omittedTools } = translated;
  if (omittedTools.length > 0) logger.debug({ reqId: ctx.requestId, omittedTools }, 'tools this service cannot provide were taken out of the offer');
  const keep = !store ? null : (response: Record<string, unknown>) => stored.save(principal.accountId, principal.keyId, frame.id, previousId, {
    response,
    input: inputItemsOf(body.input),
    messages: [...history, ...translated.messages, ...outputMessages(response['output'] as OutputItem[])],
  });
  return {
    request,
    // A request that stores its response or continues a stored one is never cached: a replay would
    // neither store the response under its id nor check that the previous one is still there.
    cacheKey: { protocol: 'responses', body: store || previousId !== null ? null : body as unknown as Readonly<Record<string, unknown>> },
    // A request that stores or continues a stored conversation is served here (the conversation
    // lives in this service's store); any other goes as it is to an upstream that speaks Responses.
    ...(store || previousId !== null ? {} : { native: nativeRequest('responses', source, ctx) }),
    headers: omittedTools.length === 0 ? undefined : { [OMITTED_TOOLS_HEADER]: omittedTools.join(', ') },
    reply: (completion: Record<string, unknown>, usage: TurnUsage) => {
      const state = replyState(completion, usage);
      if (keep === null) return responseJson(frame, state);
      const response = responseObject(frame, state);
      // The room filled up while this ran: the reply says it was not kept.
      return keep(response).then((kept) => JSON.stringify(kept ? response : { ...response, store: false }));
    },
    streamTranslator: () => new ResponsesStream(frame, keep),
    refine,
  };
}
