// POST /v1/messages/count_tokens: the prompt's tokens as the pipeline counts them for a completion
// (the request translated to chat, counted with the engine's tokenizer), without running one. It
// takes one request from the key's request limit and no tokens: counting costs the service CPU.
import type { ChatCompletionsDeps } from '../../handlers/chat-completions.ts';
import { resolveModel } from '../../dispatch/admission.ts';
import { ApiError } from '../../errors/api-error.ts';
import { BodyReader } from '../../http/body-reader.ts';
import { isJsonContentType } from '../../http/content-type.ts';
import type { RequestContext } from '../../http/request-context.ts';
import { send } from '../../http/respond.ts';
import { rateLimitError } from '../../ratelimit/rate-limit-headers.ts';
import { parseJsonBody } from '../../validation/parse-json-body.ts';
import type { MessagesFront } from './messages-front.ts';

export async function countMessageTokens(front: MessagesFront, deps: ChatCompletionsDeps, ctx: RequestContext): Promise<void> {
  ctx.errorFormat = front.errorFormat;
  // Made before anything is awaited: it takes the body as it arrives.
  const reader = new BodyReader(ctx, deps.config);
  const principal = await deps.auth.authenticate(front.credential(ctx));
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const { chat } = front.chatRequest(parseJsonBody(await reader.read(), { maxDepth: deps.config.maxJsonDepth }), true);
  ctx.model = chat.model;
  resolveModel(deps.catalog, principal, chat.model);
  const decision = deps.limiter.tryAcquire(principal, 0) ?? (await deps.limiter.acquire(principal, 0));
  const { lease } = decision;
  if (!decision.allowed || lease === null) throw rateLimitError(decision, 0);
  try {
    const inputTokens = await deps.dispatch.engine.countPromptTokens(chat.messages);
    send(ctx, 200, `{"input_tokens":${inputTokens}}`);
  } finally {
    void deps.limiter.settle(lease, 0);
  }
}
