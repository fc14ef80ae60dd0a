// GET /v1/models and GET /v1/models/{id}: bodies are serialised once at start.
import type { Authenticator } from '../auth/authenticator.ts';
import { ApiError } from '../errors/api-error.ts';
import { send } from '../http/respond.ts';
import type { RequestContext } from '../http/request-context.ts';
import type { ModelCatalog } from '../models/model-catalog.ts';

export interface ModelsDeps {
  readonly catalog: ModelCatalog;
  readonly auth: Authenticator;
}

export async function listModels(deps: ModelsDeps, ctx: RequestContext): Promise<void> {
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.keyId = principal.keyId;
  if (principal.models === null) {
    send(ctx, 200, deps.catalog.listBody);
    return;
  }
  const visible = deps.catalog.ids.filter((id) => principal.models?.has(id));
  send(ctx, 200, `{"object":"list","data":[${visible.map((id) => deps.catalog.modelBody(id)).join(',')}]}`);
}

export const MODEL_PATH_PREFIX = '/v1/models/';

export async function retrieveModel(deps: ModelsDeps, ctx: RequestContext): Promise<void> {
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.keyId = principal.keyId;
  const id = decodedSegment(ctx.path.slice(MODEL_PATH_PREFIX.length));
  const body = id === null ? undefined : deps.catalog.modelBody(id);
  if (id === null || body === undefined || (principal.models !== null && !principal.models.has(id))) {
    throw new ApiError('model_not_found', { param: 'model' });
  }
  send(ctx, 200, body);
}

/** A percent-decoded path segment, or null when its escapes are malformed (no model has such an id). */
function decodedSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
