// GET /v1/responses/{id}, DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items: a
// key's account reads and deletes its own stored responses; another account's id is a 404.
import type { Authenticator } from '../../auth/authenticator.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { RequestContext } from '../../http/request-context.ts';
import { send } from '../../http/respond.ts';
import { responseNotFound, type StoredResponses } from './stored-responses.ts';

export const RESPONSES_PATH_PREFIX = '/v1/responses/';

export interface StoredResponseDeps {
  readonly auth: Authenticator;
  readonly stored: StoredResponses;
}

const INPUT_ITEMS = '/input_items';

export async function readStoredResponse(deps: StoredResponseDeps, ctx: RequestContext): Promise<void> {
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.keyId = principal.keyId;
  const rest = ctx.path.slice(RESPONSES_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  const listing = slash !== -1;
  // The router let through one segment or two: the second must be input_items.
  if (listing && rest.slice(slash) !== INPUT_ITEMS) throw new ApiError('unknown_route');
  const id = listing ? rest.slice(0, slash) : rest;
  const kept = await deps.stored.find(principal.accountId, id);
  if (kept === undefined) throw responseNotFound(id, null);
  if (!listing) return void send(ctx, 200, JSON.stringify(kept.response));
  send(ctx, 200, JSON.stringify(page(kept.input, new URLSearchParams(ctx.query))));
}

export async function deleteStoredResponse(deps: StoredResponseDeps, ctx: RequestContext): Promise<void> {
  const principal = await deps.auth.authenticate(ctx.authorization);
  ctx.keyId = principal.keyId;
  const id = ctx.path.slice(RESPONSES_PATH_PREFIX.length);
  if (!(await deps.stored.delete(principal.accountId, id))) throw responseNotFound(id, null);
  send(ctx, 200, JSON.stringify({ id, object: 'response.deleted', deleted: true }));
}

/** A page of input items, as OpenAI lists them: `order` desc by default, `after` an item id, `limit` 1–100 (20). */
function page(items: readonly Record<string, unknown>[], query: URLSearchParams): Record<string, unknown> {
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new ApiError('invalid_value', { param: 'order', message: 'order must be asc or desc.' });
  const limitText = query.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ApiError('invalid_value', { param: 'limit', message: 'limit must be an integer from 1 to 100.' });
  const ordered = order === 'asc' ? items : [...items].reverse();
  const after = query.get('after');
  const start = after === null ? 0 : ordered.findIndex((item) => item['id'] === after) + 1;
  if (after !== null && start === 0) throw new ApiError('invalid_value', { param: 'after', message: 'after names no item of this response.' });
  const data = ordered.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null, has_more: start + limit < ordered.length };
}
