// /v1/admin/accounts: create (by email), list (oldest first), read, change (status, admin, budget,
// priority, rate limits).
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { type AuditActor, auditedChange, recordAudit } from '../store/audit.ts';
import { isPlausibleEmail } from '../store/email.ts';
import type { Account, AccountChange, Store } from '../store/store.ts';
import { adminCall } from './admin-call.ts';
import type { AdminDeps } from './admin-deps.ts';
import { bodyValidator, readBody } from './admin-body.ts';
import { list, pageOffset, pageRequest } from './admin-paging.ts';
import { CHANGE_ACCOUNT_SCHEMA, CREATE_ACCOUNT_SCHEMA, type ChangeAccountBody, type CreateAccountBody } from './admin-schemas.ts';
import { budgetFrom } from './admin-record-input.ts';
import { accountObject } from './admin-views.ts';

export const ACCOUNTS_PATH = '/v1/admin/accounts';
export const ACCOUNT_PATH_PREFIX = `${ACCOUNTS_PATH}/`;

const validateCreate = bodyValidator<CreateAccountBody>(CREATE_ACCOUNT_SCHEMA);
const validateChange = bodyValidator<ChangeAccountBody>(CHANGE_ACCOUNT_SCHEMA);

/** POST /v1/admin/accounts: an existing email answers its account unchanged (and audits nothing). */
export function createAccount(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async ({ by, body }) => {
    const { email, admin = false } = await readBody(ctx, body!, validateCreate);
    if (!isPlausibleEmail(email)) throw new ApiError('invalid_value', { param: 'email', message: 'email must be an email address.' });
    const existing = await deps.store.findAccountByEmail(email);
    if (existing !== undefined) return accountObject(existing, deps.config.budgets.currency);
    const account = await deps.store.createAccount(email, { isAdmin: admin });
    await recordAudit(deps.store, by, 'account.created', account.id, { email: account.email, admin: account.isAdmin });
    return accountObject(account, deps.config.budgets.currency);
  });
}

export function listAccounts(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => {
    const page = pageRequest(new URLSearchParams(ctx.query));
    const offset = pageOffset(page);
    const { accounts, total } = await deps.store.listAccountPage(offset, page.limit);
    const end = offset + accounts.length;
    return list(accounts.map((account) => accountObject(account, deps.config.budgets.currency)), end < total, end);
  });
}

export function readAccount(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async () => accountObject(await accountAt(deps.store, ctx), deps.config.budgets.currency));
}

/**
 * PATCH /v1/admin/accounts/{id}: suspend or resume, grant or take the admin role, set or clear the
 * budget, the priority and the rate limits its keys share; not one's own account.
 */
export function changeAccount(deps: AdminDeps, ctx: RequestContext): Promise<void> {
  return adminCall(deps, ctx, async ({ by, body }) => {
    const change = await readBody(ctx, body!, validateChange);
    const budget = budgetFrom(change.budget);
    let account = await accountAt(deps.store, ctx);
    if (account.id === by.actor) {
      throw new ApiError('invalid_value', { param: 'id', message: 'An admin key cannot change its own account.' });
    }
    if (change.status !== undefined && change.status !== account.status) {
      account = await setStatus(deps.store, by, account, change.status);
    }
    if (change.admin !== undefined && change.admin !== account.isAdmin) {
      account = await setAdmin(deps.store, by, account, change.admin);
    }
    const recordChange: AccountChange = {
      ...(budget === undefined ? {} : { budget }),
      ...(change.priority === undefined ? {} : { priority: change.priority }),
      ...(change.rpm === undefined ? {} : { rpm: change.rpm }),
      ...(change.tpm === undefined ? {} : { tpm: change.tpm }),
    };
    if (Object.keys(recordChange).length > 0) {
      const changed = await deps.store.updateAccount(account.id, recordChange);
      if (changed === undefined) throw new ApiError('account_not_found');
      await recordAudit(deps.store, by, 'account.changed', changed.id, auditedChange(recordChange));
      account = changed;
    }
    return accountObject(account, deps.config.budgets.currency);
  });
}

async function setStatus(store: Store, by: AuditActor, account: Account, status: Account['status']): Promise<Account> {
  const changed = await store.setAccountStatus(account.email, status);
  if (changed === undefined) throw new ApiError('account_not_found');
  await recordAudit(store, by, status === 'suspended' ? 'account.suspended' : 'account.resumed', changed.id, { status });
  return changed;
}

async function setAdmin(store: Store, by: AuditActor, account: Account, admin: boolean): Promise<Account> {
  const changed = await store.setAccountAdmin(account.email, admin);
  if (changed === undefined) throw new ApiError('account_not_found');
  await recordAudit(store, by, admin ? 'account.admin_granted' : 'account.admin_revoked', changed.id, { admin });
  return changed;
}

async function accountAt(store: Store, ctx: RequestContext): Promise<Account> {
  const id = ctx.path.slice(ACCOUNT_PATH_PREFIX.length);
  const account = await store.findAccountById(id);
  if (account === undefined) throw new ApiError('account_not_found', { param: 'id' });
  return account;
}
