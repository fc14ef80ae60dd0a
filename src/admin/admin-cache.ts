// DELETE /v1/admin/cache?account=…|key=…|all=true: drops cached replies from the response cache —
// an account's (by id or email), those a key filled, or all — and says how many. With Redis that is
// the fleet's cache; without it, this process's memory. Audited as `cache.purged`.
import type { PurgeScope } from '../cache/memory-reply-store.ts';
import { purgeTarget } from '../cache/memory-reply-store.ts';
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { recordAudit } from '../store/audit.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { findAccount } from './admin-keys.ts';

export const CACHE_PATH = '/v1/admin/cache';

export function purgeCache(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async ({ by }) => {
    const scope = await scopeOf(deps, new URLSearchParams(ctx.query));
    const cache = deps.cache();
    const purged = cache === null ? 0 : await cache.purge(scope);
    await recordAudit(deps.store, by, 'cache.purged', purgeTarget(scope), { purged });
    return { object: 'cache.purge', purged };
  });
}

async function scopeOf(deps: AdminDeps, query: URLSearchParams): Promise<PurgeScope> {
  const account = query.get('account');
  const keyId = query.get('key');
  const all = query.get('all');
  if ([account, keyId, all].filter((value) => value !== null).length !== 1) {
    throw new ApiError('missing_required_parameter', { message: 'Give exactly one of account, key or all=true.' });
  }
  if (all !== null) {
    if (all !== 'true') throw new ApiError('invalid_value', { param: 'all', message: 'all must be true.' });
    return { all: true };
  }
  if (account !== null) return { accountId: (await findAccount(deps.store, account, 'account')).id };
  const key = await deps.store.findKeyById(keyId!);
  if (key === undefined) throw new ApiError('key_not_found', { param: 'key' });
  return { keyId: key.id, accountId: key.accountId };
}
