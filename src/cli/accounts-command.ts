// `munja accounts list`, `munja accounts create|suspend|resume|admin|password|budget|priority EMAIL`.
import { type AuditAction, CLI_ACTOR, recordAudit } from '../store/audit.ts';
import type { Account, Store } from '../store/store.ts';
import { accountBudgetCommand, accountPriorityCommand } from './account-records-command.ts';
import { listAccounts } from './accounts-list.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs, parseEmail } from './arguments.ts';
import { EXIT_OK, notFound, usageError, writeJson, type CliIo } from './cli-io.ts';
import { accountJson } from './format.ts';
import { withStore } from './open-store.ts';
import { passwordCommand } from './password-command.ts';

const SUBCOMMANDS = 'list, create, suspend, resume, admin, password, budget or priority';

interface Outcome {
  readonly account: Account;
  readonly message: string;
  readonly created?: boolean;
}

type Action = (store: Store, email: string, revoke: boolean) => Promise<Outcome>;

const ACTIONS: Readonly<Record<string, Action>> = {
  async create(store, email) {
    const existing = await store.findAccountByEmail(email);
    if (existing !== undefined) {
      return { account: existing, created: false, message: `Account ${email} already exists (${existing.id}).` };
    }
    const account = await store.createAccount(email);
    await recordAudit(store, CLI_ACTOR, 'account.created', account.id, { email: account.email, admin: account.isAdmin });
    return { account, created: true, message: `Created account ${email} (${account.id}).` };
  },
  async suspend(store, email) {
    const account = found(await store.setAccountStatus(email, 'suspended'), email);
    await audited(store, account, 'account.suspended', { status: 'suspended' });
    return { account, message: `Suspended ${email}: its keys are refused until it is resumed.` };
  },
  async resume(store, email) {
    const account = found(await store.setAccountStatus(email, 'active'), email);
    await audited(store, account, 'account.resumed', { status: 'active' });
    return { account, message: `Resumed ${email}: its keys work again.` };
  },
  async admin(store, email, revoke) {
    const account = found(await store.setAccountAdmin(email, !revoke), email);
    await audited(store, account, revoke ? 'account.admin_revoked' : 'account.admin_granted', { admin: !revoke });
    return { account, message: revoke ? `${email} is no longer an admin.` : `${email} is now an admin.` };
  },
};

function audited(store: Store, account: Account, action: AuditAction, fields: Record<string, unknown>): Promise<unknown> {
  return recordAudit(store, CLI_ACTOR, action, account.id, fields);
}

function found(account: Account | undefined, email: string): Account {
  if (account === undefined) throw notFound(`no account with email ${email}`);
  return account;
}

export async function accountsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) throw usageError(`missing accounts subcommand (${SUBCOMMANDS})`, 'accounts');
  if (sub === 'password') return passwordCommand(rest, io);
  if (sub === 'list') return listAccounts(rest, io);
  if (sub === 'budget') return accountBudgetCommand(rest, io);
  if (sub === 'priority') return accountPriorityCommand(rest, io);
  const action = Object.hasOwn(ACTIONS, sub) ? ACTIONS[sub] : undefined;
  if (action === undefined) throw usageError(`unknown accounts subcommand '${sub}' (${SUBCOMMANDS})`, 'accounts');

  const command = `accounts ${sub}`;
  const { values, positionals } = parseCommandArgs(rest, {
    json: { type: 'boolean' },
    ...(sub === 'admin' ? { revoke: { type: 'boolean' } } : {}),
  }, command);
  const [rawEmail = ''] = expectPositionals(positionals, ['EMAIL'], command);
  // Only create makes an account; the others may name one made before the address rules tightened.
  const email = sub === 'create' ? parseEmail(rawEmail) : parseAccountEmail(rawEmail);

  const outcome = await withStore(io, (store) => action(store, email, values['revoke'] === true));
  if (values.json) {
    writeJson(io, { ...accountJson(outcome.account), ...(outcome.created === undefined ? {} : { created: outcome.created }) });
  } else {
    io.stdout.write(`${outcome.message}\n`);
  }
  return EXIT_OK;
}
