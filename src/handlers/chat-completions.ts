// POST /v1/chat/completions: key → content type → body → JSON and validation → the completion
// service. The key comes first: a request without a valid one is refused before its body is read.
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config } from '../config/config-types.ts';
import { type AdmittedCompletion, admitCompletion, type CompletionServiceDeps, runCompletion } from '../dispatch/completion-service.ts';
import { ApiError } from '../errors/api-error.ts';
import { isJsonContentType } from '../http/content-type.ts';
import { BodyReader } from '../http/body-reader.ts';
import type { RequestContext } from '../http/request-context.ts';
import { send } from '../http/respond.ts';
import { parseJsonBody } from '../validation/parse-json-body.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';

export interface ChatCompletionsDeps extends CompletionServiceDeps {
  readonly config: Config;
  readonly auth: Authenticator;
}

/**
 * Synchronous up to the dispatch when nothing has to be waited for (the key's lookup is cached, the
 * body came with the headers, the limiter decides at once): no promise, no turn of the event loop
 * between the last body byte and the upstream request. Each wait, where there is one, is a promise.
 */
export function chatCompletions(deps: ChatCompletionsDeps, ctx: RequestContext): void | Promise<void> {
  const reader = new BodyReader(ctx, { maxBytes: deps.config.maxBodyBytes, timeoutMs: deps.config.bodyTimeoutMs }, ctx.bodyBudget);
  ctx.trace?.enter('munja.auth');
  const principal = deps.auth.cachedPrincipal(ctx.authorization);
  if (principal === undefined) return deps.auth.authenticate(ctx.authorization).then((found) => authenticated(deps, ctx, reader, found));
  return authenticated(deps, ctx, reader, principal);
}

function authenticated(deps: ChatCompletionsDeps, ctx: RequestContext, reader: BodyReader, principal: Principal): void | Promise<void> {
  ctx.trace?.leave();
  ctx.keyId = principal.keyId;
  if (!isJsonContentType(ctx.contentType)) throw new ApiError('invalid_content_type');
  const body = reader.readNow();
  if (body === null) return reader.read().then((bytes) => admit(deps, ctx, principal, bytes));
  return admit(deps, ctx, principal, body);
}

/** Parses, validates and admits the request; its bytes are not kept by the frames that await the completion. */
function admit(deps: ChatCompletionsDeps, ctx: RequestContext, principal: Principal, bytes: Uint8Array): void | Promise<void> {
  const request = validateChatRequest(parseJsonBody(bytes, { maxDepth: deps.config.maxJsonDepth }));
  ctx.model = request.model;
  ctx.stream = request.stream;
  const { trace } = ctx;
  if (trace?.capturesContent) trace.recordInput(request.body.messages);
  const admitted = admitCompletion(deps, principal, request, trace);
  return admitted instanceof Promise ? admitted.then((ready) => complete(deps, ctx, ready)) : complete(deps, ctx, admitted);
}

async function complete(deps: ChatCompletionsDeps, ctx: RequestContext, admitted: AdmittedCompletion): Promise<void> {
  ctx.promptTokens = admitted.promptTokens;
  const { trace } = ctx;
  const { request } = admitted;
  trace?.served(admitted.served.id);
  // Time spent on the target, for the gateway-overhead metric (total time minus this).
  const dispatchedAt = performance.now();
  let result;
  trace?.enter('munja.dispatch');
  try {
    // Bytes unless the completion's content is recorded in its trace.
    result = await runCompletion(deps, admitted, ctx, request.stream ? ctx : null, trace?.capturesContent !== true);
  } finally {
    ctx.targetMs = performance.now() - dispatchedAt;
    trace?.leave();
  }
  ctx.promptTokens = result.billedPromptTokens;
  ctx.completionTokens = result.completionTokens;
  const { body, bytes } = result;
  if (trace?.capturesContent && body != null) trace.recordOutput(body.choices);
  if (bytes == null && body == null) return;
  const headers = isEmpty(result.headers) ? admitted.headers : { ...admitted.headers, ...result.headers };
  send(ctx, 200, bytes ?? JSON.stringify(body), headers);
}

function isEmpty(headers: Readonly<Record<string, string>> | undefined): boolean {
  for (const _name in headers) return false;
  return true;
}
