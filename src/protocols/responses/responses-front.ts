// POST /v1/responses: the Responses API on the chat pipeline (protocol-endpoint.ts). The request is
// translated into a chat request; its reply and its stream are translated back into a Response.
import type { Logger } from 'pino';
import type { Principal } from '../../auth/authenticator.ts';
import type { RequestContext } from '../../http/request-context.ts';
import { randomId } from '../../streaming/completion-id.ts';
import { validateChatRequest } from '../../validation/validate-chat-request.ts';
import type { ProtocolFront, ProtocolTurn, TurnUsage } from '../protocol-endpoint.ts';
import { inResponsesTerms } from './chat-param-names.ts';
import type { ResponseFrame } from './response-object.ts';
import { responseFromCompletion } from './responses-reply.ts';
import { parseResponsesBody, translateResponsesRequest } from './responses-request.ts';
import { ResponsesStream } from './responses-stream.ts';

/** Names the tools taken out of a request's offer (built-in tools this service cannot provide). */
export const OMITTED_TOOLS_HEADER = 'x-munja-omitted-tools';

export function responsesFront(logger: Logger): ProtocolFront {
  return {
    errorFormat: null,
    credential: (ctx: RequestContext) => ctx.authorization,
    begin: (value: unknown, _principal: Principal, ctx: RequestContext) => beginTurn(value, ctx, logger),
  };
}

function beginTurn(value: unknown, ctx: RequestContext, logger: Logger): ProtocolTurn {
  const body = parseResponsesBody(value);
  const translated = translateResponsesRequest(body, []);
  const refine = (error: unknown) => inResponsesTerms(error, translated.toolIndexes);
  let request;
  try {
    request = validateChatRequest(translated.chatBody);
  } catch (error) {
    throw refine(error);
  }
  const frame: ResponseFrame = { id: randomId('resp_'), createdAt: Math.floor(Date.now() / 1000), model: body.model, body, store: body.store ?? true };
  const { omittedTools } = translated;
  if (omittedTools.length > 0) logger.debug({ reqId: ctx.requestId, omittedTools }, 'tools this service cannot provide were taken out of the offer');
  return {
    request,
    headers: omittedTools.length === 0 ? undefined : { [OMITTED_TOOLS_HEADER]: omittedTools.join(', ') },
    reply: (completion: Record<string, unknown>, usage: TurnUsage) => JSON.stringify(responseFromCompletion(frame, completion, usage)),
    streamTranslator: () => new ResponsesStream(frame),
    refine,
  };
}
