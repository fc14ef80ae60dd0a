// POST /v1/chat/completions: body → auth → validation → model → limits → engine → delivery.
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config, ModelConfig } from '../config/config-types.ts';
import { type DispatchDeps, dispatchCompletion } from '../dispatch/dispatch.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { readBody } from '../http/read-body.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ModelCatalog, ResolvedModel } from '../models/model-catalog.ts';
import type { Limiter } from '../ratelimit/limiter.ts';
import { rateLimitError, rateLimitHeaders } from '../ratelimit/rate-limit-headers.ts';
import type { UsageRecorder } from '../store/usage-recorder.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';

export interface ChatCompletionsDeps {
  readonly config: Config;
  readonly catalog: ModelCatalog;
  readonly auth: Authenticator;
  readonly limiter: Limiter;
  readonly dispatch: DispatchDeps;
  readonly usage: UsageRecorder;
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
  const resolved = resolveModel(deps.catalog, principal, request.model);
  ctx.model = resolved.publicId;
  ctx.stream = request.stream;
  const model = resolved.served;
  const maxTokens = checkMaxTokens(request, model);
  const promptTokens = await deps.dispatch.engine.countPromptTokens(request.messages);
  ctx.promptTokens = promptTokens;
  const budget = model.contextTokens - promptTokens;
  if (budget < (maxTokens ?? 1)) {
    throw new ApiError('context_length_exceeded', {
      param: 'messages',
      message: `This model's context is ${model.contextTokens} tokens; the messages use ${promptTokens}${maxTokens ? ` and max_tokens asks for ${maxTokens}` : ''}.`,
    });
  }
  const reserved = promptTokens + request.n * (maxTokens ?? Math.min(model.defaultMaxTokens, budget));
  const decision = await deps.limiter.acquire(principal.keyId, principal.limits, reserved);
  if (!decision.allowed) throw rateLimitError(decision, reserved);

  const headers = rateLimitHeaders(decision);
  if (resolved.publicId !== model.id) headers['x-munja-served-model'] = model.id;
  let completionTokens = 0;
  let billedPrompt = promptTokens;
  try {
    const outcome = await dispatchCompletion(deps.dispatch, {
      ctx,
      request,
      publicModel: resolved.publicId,
      model,
      maxTokens: maxTokens ?? Math.min(model.maxOutputTokens, budget),
      headers,
    });
    completionTokens = outcome.completionTokens;
    billedPrompt = outcome.promptTokens ?? promptTokens;
  } finally {
    ctx.promptTokens = billedPrompt;
    ctx.completionTokens = completionTokens;
    void deps.limiter.settle(principal.keyId, principal.limits, reserved, billedPrompt + completionTokens);
    deps.usage.record(principal.keyId, billedPrompt, completionTokens);
  }
}

function resolveModel(catalog: ModelCatalog, principal: Principal, id: string): ResolvedModel {
  const resolved = catalog.resolve(id);
  if (resolved === undefined) {
    throw new ApiError('model_not_found', { param: 'model', message: `The model "${id.slice(0, 128)}" does not exist. GET /v1/models lists the available ones.` });
  }
  if (principal.models !== null && !principal.models.has(id)) {
    throw new ApiError('model_not_allowed', { param: 'model', message: `This key may not use the model "${id}".` });
  }
  return resolved;
}

function checkMaxTokens(request: ChatRequest, model: ModelConfig): number | null {
  const { maxTokens } = request;
  if (maxTokens !== null && maxTokens > model.maxOutputTokens) {
    throw new ApiError('invalid_value', {
      param: request.maxTokensParam,
      message: `${request.maxTokensParam} must be at most ${model.maxOutputTokens} for the model "${model.id}".`,
    });
  }
  return maxTokens;
}
