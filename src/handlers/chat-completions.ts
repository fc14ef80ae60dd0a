// POST /v1/chat/completions: body → auth → content type → JSON and validation → the completion service.
import type { Authenticator } from '../auth/authenticator.ts';
import type { Config } from '../config/config-types.ts';
import { admitCompletion, type CompletionServiceDeps, runCompletion } from '../dispatch/completion-service.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { readBody } from '../http/read-body.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';

export interface ChatCompletionsDeps extends CompletionServiceDeps {
  readonly config: Config;
  readonly auth: Authenticator;
}

export function chatCompletions(deps: ChatCompletionsDeps, ctx: RequestContext): Promise<void> {
  const { maxBodyBytes, bodyTimeoutMs } = deps.config;
  return new Promise<Uint8Array>((resolve, reject) => {
    let read = false;
    const stopReading = readBody(ctx, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs }, (outcome) => {
      read = true;
      ctx.onAbort = null;
      if (outcome.ok) resolve(outcome.body);
      else if (outcome.reason === 'timed_out') reject(new ApiError('request_timeout'));
      else reject(new ApiError('request_too_large', { message: `The request body is larger than the ${maxBodyBytes} bytes this service accepts.` }));
    });
    if (read) return;
    ctx.onAbort = () => {
      stopReading();
      reject(new Error('client closed the request while sending the body'));
    };
  }).then((body) => complete(deps, ctx, body));
}

async function complete(deps: ChatCompletionsDeps, ctx: RequestContext, body: Uint8Array): Promise<void> {
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const request = validateChatRequest(parseJsonBody(body, { maxDepth: deps.config.maxJsonDepth }));
  ctx.model = request.model;
  ctx.stream = request.stream;
  const admitted = await admitCompletion(deps, principal, request);
  ctx.promptTokens = admitted.promptTokens;
  const result = await runCompletion(deps, admitted, ctx, request.stream ? ctx : null);
  ctx.promptTokens = result.billedPromptTokens;
  ctx.completionTokens = result.completionTokens;
  if (result.body !== null) send(ctx, 200, JSON.stringify(result.body), { ...admitted.headers, ...result.headers });
}
