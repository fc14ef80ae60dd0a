// Routes /v1/admin/… (docs/admin-api.md). Exact paths and prefixes of their own: the chat path's
// lookup is one Map hit before any of these is looked at.
import type { Router } from '../http/router.ts';
import { ACCOUNT_PATH_PREFIX, ACCOUNTS_PATH, changeAccount, createAccount, listAccounts, readAccount } from './admin-accounts.ts';
import { AUDIT_PATH, adminAudit } from './admin-audit.ts';
import { CACHE_PATH, purgeCache } from './admin-cache.ts';
import type { AdminDeps } from './admin-deps.ts';
import { KEY_PATH_PREFIX, KEYS_PATH, createKey, keyById, listKeys } from './admin-keys.ts';
import { USAGE_PATH, adminUsage } from './admin-usage.ts';

export function mountAdmin(router: Router, deps: AdminDeps): void {
  router
    .on('POST', ACCOUNTS_PATH, (ctx) => createAccount(deps, ctx))
    .on('GET', ACCOUNTS_PATH, (ctx) => listAccounts(deps, ctx))
    .onPrefix('GET', ACCOUNT_PATH_PREFIX, (ctx) => readAccount(deps, ctx))
    .onPrefix('PATCH', ACCOUNT_PATH_PREFIX, (ctx) => changeAccount(deps, ctx))
    .on('POST', KEYS_PATH, (ctx) => createKey(deps, ctx))
    .on('GET', KEYS_PATH, (ctx) => listKeys(deps, ctx))
    // Up to two segments: {id} and {id}/rotate (keyById tells them apart).
    .onPrefix('POST', KEY_PATH_PREFIX, (ctx) => keyById(deps, ctx), 2)
    .onPrefix('GET', KEY_PATH_PREFIX, (ctx) => keyById(deps, ctx))
    .onPrefix('PATCH', KEY_PATH_PREFIX, (ctx) => keyById(deps, ctx))
    .onPrefix('DELETE', KEY_PATH_PREFIX, (ctx) => keyById(deps, ctx))
    .on('GET', USAGE_PATH, (ctx) => adminUsage(deps, ctx))
    .on('GET', AUDIT_PATH, (ctx) => adminAudit(deps, ctx))
    .on('DELETE', CACHE_PATH, (ctx) => purgeCache(deps, ctx));
}
