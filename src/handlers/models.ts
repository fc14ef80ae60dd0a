// GET /v1/models and GET /v1/models/{id}: bodies are serialised once at start. A request with
// anthropic-version (Anthropic's SDKs) gets Anthropic's shape, its errors included.
import type { Authenticator } from '../auth/authenticator.ts';
import { ApiError } from '../errors/api-error.ts';
import { send } from '../http/respond.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ModelCatalog } from '../models/model-catalog.ts';
import { anthropicCredential } from '../protocols/messages/anthropic-credential.ts';
import { anthropicErrorBody } from '../protocols/messages/anthropic-errors.ts';
import type { AnthropicModels } from '../protocols/messages/anthropic-models.ts';

export interface ModelsDeps {
  readonly catalog: ModelCatalog;
  readonly auth: Authenticator;
  readonly anthropicModels: AnthropicModels;
}

export async function listModels(deps: ModelsDeps, ctx: RequestContext): Promise<void> {
  const anthropic = speaksAnthropic(ctx);
  const principal = await deps.auth.authenticate(anthropicCredential(ctx));
  ctx.keyId = principal.keyId;
  if (principal.models === null) {
    send(ctx, 200, anthropic ? deps.anthropicModels.listBody : deps.catalog.listBody);
    return;
  }
  const visible = deps.catalog.ids.filter((id) => principal.models?.has(id));
  if (anthropic) send(ctx, 200, deps.anthropicModels.listOf(visible));
  else send(ctx, 200, `{"object":"list","data":[${visible.map((id) => deps.catalog.modelBody(id)).join(',')}]}`);
}

export const MODEL_PATH_PREFIX = '/v1/models/';

export async function retrieveModel(deps: ModelsDeps, ctx: RequestContext): Promise<void> {
  const anthropic = speaksAnthropic(ctx);
  const principal = await deps.auth.authenticate(anthropicCredential(ctx));
  ctx.keyId = principal.keyId;
  const id = decodedSegment(ctx.path.slice(MODEL_PATH_PREFIX.length));
  const body = id === null ? undefined : anthropic ? deps.anthropicModels.modelBody(id) : deps.catalog.modelBody(id);
  if (id === null || body === undefined || (principal.models !== null && !principal.models.has(id))) {
    throw new ApiError('model_not_found', { param: 'model' });
  }
  send(ctx, 200, body);
}

/** Sent by every Anthropic SDK and by Claude Code: the answer, and its errors, take Anthropic's shape. */
function speaksAnthropic(ctx: RequestContext): boolean {
  if (ctx.anthropic === null || ctx.anthropic.version === '') return false;
  ctx.errorFormat = anthropicErrorBody;
  return true;
}

/** A percent-decoded path segment, or null when its escapes are malformed (no model has such an id). */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
