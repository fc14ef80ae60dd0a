// POST /v1/chat/completions: key → content type → body → JSON and validation → the completion
// service. The key comes first: a request without a valid one is refused before its body is read.
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config } from '../config/config-types.ts';
import { admitCompletion, type CompletionServiceDeps, runCompletion } from '../dispatch/completion-service.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { BodyReader } from '../http/body-reader.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';

export interface ChatCompletionsDeps extends CompletionServiceDeps {
  readonly config: Config;
  readonly auth: Authenticator;
}

export async function chatCompletions(deps: ChatCompletionsDeps, ctx: RequestContext): Promise<void> {
  const { principal, request } = await readChatRequest(deps, ctx);
  ctx.model = request.model;
  ctx.stream = request.stream;
  const { trace } = ctx;
  if (trace?.capturesContent) trace.recordInput(request.body.messages);
  const admitted = await admitCompletion(deps, principal, request, trace);
  ctx.promptTokens = admitted.promptTokens;
  trace?.served(admitted.served.id);
  // Time spent on the target, for the gateway-overhead metric (total time minus this).
  const dispatchedAt = performance.now();
  let result;
  trace?.enter('munja.dispatch');
  try {
    result = await runCompletion(deps, admitted, ctx, request.stream ? ctx : null);
  } finally {
    ctx.targetMs = performance.now() - dispatchedAt;
    trace?.leave();
  }
  ctx.promptTokens = result.billedPromptTokens;
  ctx.completionTokens = result.completionTokens;
  if (trace?.capturesContent && result.body !== null) trace.recordOutput(result.body.choices);
  if (result.body !== null) send(ctx, 200, JSON.stringify(result.body), { ...admitted.headers, ...result.headers });
}

/**
 * The request, authenticated and validated. Its bytes stay in this short-lived frame: a frame
 * that awaits the completion would keep them for as long as a stream lasts.
 */
async function readChatRequest(deps: ChatCompletionsDeps, ctx: RequestContext): Promise<{ principal: Principal; request: ChatRequest }> {
  const reader = new BodyReader(ctx, { maxBytes: deps.config.maxBodyBytes, timeoutMs: deps.config.bodyTimeoutMs }, ctx.bodyBudget);
  ctx.trace?.enter('munja.auth');
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.trace?.leave();
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const body = await reader.read();
  return { principal, request: validateChatRequest(parseJsonBody(body, { maxDepth: deps.config.maxJsonDepth })) };
}
