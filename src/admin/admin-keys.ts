// /v1/admin/keys: create for an account, list one account's keys (oldest first), read, change,
// rotate (a new secret for the same key; the old one works for grace_seconds) and revoke. The
// secret is in the create and rotate answers only. Changes reach every instance's auth cache
// through the store's key events.
import { createApiKey, rotateApiKey } from '../auth/create-key.ts';
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { auditedChange, recordAudit } from '../store/audit.ts';
import { type Account, type ApiKeyRecord, type KeyChange, KeyCapError, type Store } from '../store/store.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { bodyValidator, readBody } from './admin-body.ts';
import { list, pageOffset, pageRequest } from './admin-paging.ts';
import {
  CHANGE_KEY_SCHEMA, CREATE_KEY_SCHEMA, ROTATE_KEY_SCHEMA, type ChangeKeyBody, type CreateKeyBody, type RotateKeyBody,
} from './admin-schemas.ts';
import { recordFieldsFrom } from './admin-record-input.ts';
import { keyObject } from './admin-views.ts';

export const KEYS_PATH = '/v1/admin/keys';
export const KEY_PATH_PREFIX = `${KEYS_PATH}/`;
const ROTATE = '/rotate';

const validateCreate = bodyValidator<CreateKeyBody>(CREATE_KEY_SCHEMA);
const validateChange = bodyValidator<ChangeKeyBody>(CHANGE_KEY_SCHEMA);
const validateRotate = bodyValidator<RotateKeyBody>(ROTATE_KEY_SCHEMA);

export function createKey(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async ({ by, body }) => {
    const request = await readBody(ctx, body!, validateCreate);
    const account = await findAccount(deps.store, request.account, 'account');
    const models = knownModels(deps, request.models);
    const fields = recordFieldsFrom(request);
    const maxKeys = deps.config.dashboard.maxKeysPerAccount;
    const created = await createApiKey(deps.store, {
      accountEmail: account.email, name: request.name ?? '', models, rpm: request.rpm ?? null, tpm: request.tpm ?? null,
      admin: request.admin ?? false, maxKeys, ...fields,
    }).catch((error: unknown) => {
      if (!(error instanceof KeyCapError)) throw error;
      throw new ApiError('key_limit_reached', { message: `The account has ${maxKeys} keys that are not revoked (server.dashboard.maxKeysPerAccount). Revoke one first.` });
    });
    await recordAudit(deps.store, by, 'key.created', created.record.id, {
      account: account.id, name: created.record.name, models, rpm: created.record.limits.rpm, tpm: created.record.limits.tpm,
      admin: created.record.admin, ...auditedChange(fields),
    });
    return { ...keyObject(created.record, currency(deps)), secret: created.key };
  });
}

/** GET /v1/admin/keys?account=ID_OR_EMAIL: one account's keys, revoked ones included. */
export function listKeys(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => {
    const query = new URLSearchParams(ctx.query);
    const page = pageRequest(query);
    const accountParam = query.get('account');
    if (accountParam === null || accountParam === '') {
      throw new ApiError('missing_required_parameter', { param: 'account', message: 'account (an account id or email) is required.' });
    }
    const account = await findAccount(deps.store, accountParam, 'account');
    const offset = pageOffset(page);
    const keys = await deps.store.listKeys(account.id);
    const end = Math.min(keys.length, offset + page.limit);
    return list(keys.slice(offset, end).map((key) => keyObject(key, currency(deps))), end < keys.length, end);
  });
}

/** GET, PATCH and DELETE /v1/admin/keys/{id}, and POST /v1/admin/keys/{id}/rotate. */
export function keyById(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async ({ by, body }) => {
    const rest = ctx.path.slice(KEY_PATH_PREFIX.length);
    const slash = rest.indexOf('/');
    const rotating = slash !== -1 && rest.slice(slash) === ROTATE;
    if ((slash !== -1 && !rotating) || (ctx.method === 'POST') !== rotating) throw new ApiError('unknown_route');
    const id = slash === -1 ? rest : rest.slice(0, slash);
    switch (ctx.method) {
      case 'PATCH': {
        const { name, models, rpm, tpm, ...fields } = await readBody(ctx, body!, validateChange);
        const change: KeyChange = {
          ...(name === undefined ? {} : { name }), ...(rpm === undefined ? {} : { rpm }), ...(tpm === undefined ? {} : { tpm }),
          ...(models === undefined ? {} : { models: knownModels(deps, models) }), ...recordFieldsFrom(fields),
        };
        const key = notRevoked(await deps.store.findKeyById(id));
        const changed = await deps.store.updateKey(key.id, change);
        if (changed === undefined) throw new ApiError('key_not_found', { param: 'id' });
        await recordAudit(deps.store, by, 'key.changed', changed.id, auditedChange(change));
        return keyObject(changed, currency(deps));
      }
      case 'POST': {
        const { grace_seconds: graceSeconds = 0 } = await readBody(ctx, body!, validateRotate, true);
        notRevoked(await deps.store.findKeyById(id));
        const rotated = await rotateApiKey(deps.store, id, Date.now() + graceSeconds * 1000);
        if (rotated === undefined) throw new ApiError('key_not_found', { param: 'id' });
        await recordAudit(deps.store, by, 'key.rotated', rotated.record.id, { grace_seconds: graceSeconds, prefix: rotated.record.prefix });
        return { ...keyObject(rotated.record, currency(deps)), secret: rotated.key };
      }
      case 'DELETE': {
        const revoked = await deps.store.revokeKey(id);
        if (revoked === undefined) throw new ApiError('key_not_found', { param: 'id' });
        await recordAudit(deps.store, by, 'key.revoked', revoked.id);
        return keyObject(revoked, currency(deps));
      }
      default: {
        const key = await deps.store.findKeyById(id);
        if (key === undefined) throw new ApiError('key_not_found', { param: 'id' });
        return keyObject(key, currency(deps));
      }
    }
  });
}

/** An account by id (`acct_…`) or email; `account_not_found` naming `param` otherwise. */
export async function findAccount(store: Store, idOrEmail: string, param: string): Promise<Account> {
  const account = idOrEmail.includes('@') ? await store.findAccountByEmail(idOrEmail) : await store.findAccountById(idOrEmail);
  if (account === undefined) throw new ApiError('account_not_found', { param });
  return account;
}

function currency(deps: AdminDeps): string {
  return deps.config.budgets.currency;
}

function notRevoked(key: ApiKeyRecord | undefined): ApiKeyRecord {
  if (key === undefined) throw new ApiError('key_not_found', { param: 'id' });
  if (key.revokedAt !== null) throw new ApiError('invalid_value', { param: 'id', message: 'The key is revoked; a revoked key cannot be changed or rotated.' });
  return key;
}

/** Null (every model) for null, absent or empty; otherwise each must be a configured model. */
function knownModels(deps: AdminDeps, models: readonly string[] | null | undefined): string[] | null {
  if (models === undefined || models === null || models.length === 0) return null;
  const known = new Set(deps.config.models.map((model) => model.id));
  const unknown = models.find((id) => !known.has(id));
  if (unknown !== undefined) {
    throw new ApiError('invalid_value', { param: 'models', message: `models: unknown model ${JSON.stringify(unknown.slice(0, 100))}.` });
  }
  return [...new Set(models)];
}
