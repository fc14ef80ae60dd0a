// `munja accounts budget EMAIL (--amount N --period P | --clear)` and `munja accounts priority EMAIL
// high|normal|low|none`: what an account's keys share, audited as account.changed.
import { auditedChange, CLI_ACTOR, recordAudit } from '../store/audit.ts';
import type { AccountChange } from '../store/store.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs } from './arguments.ts';
import { EXIT_OK, notFound, usageError, writeJson, type CliIo } from './cli-io.ts';
import { accountJson, budgetText } from './format.ts';
import { withStore } from './open-store.ts';
import { parseBudget, parsePriority } from './record-options.ts';

export async function accountBudgetCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'accounts budget';
  const { values, positionals } = parseCommandArgs(args, {
    json: { type: 'boolean' }, amount: { type: 'string' }, period: { type: 'string' }, clear: { type: 'boolean' },
  }, command);
  const [rawEmail = ''] = expectPositionals(positionals, ['EMAIL'], command);
  if (values.clear === true && (values.amount !== undefined || values.period !== undefined)) throw usageError('--clear takes no --amount or --period', command);
  if (values.clear !== true && values.amount === undefined) throw usageError('give --amount N --period day|month|total, or --clear', command);
  const budget = values.clear === true ? null : parseBudget(values.amount, values.period, command, ['--amount', '--period'])!;
  return changeAccount(io, parseAccountEmail(rawEmail), { budget }, values.json === true);
}

export async function accountPriorityCommand(args: string[], io: CliIo): Promise<number> {
  const command = 'accounts priority';
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, command);
  const [rawEmail = '', level = ''] = expectPositionals(positionals, ['EMAIL', 'PRIORITY'], command);
  const priority = parsePriority(level, 'PRIORITY', command)!;
  return changeAccount(io, parseAccountEmail(rawEmail), { priority }, values.json === true);
}

async function changeAccount(io: CliIo, email: string, change: AccountChange, json: boolean): Promise<number> {
  const account = await withStore(io, async (store) => {
    const found = await store.findAccountByEmail(email);
    const changed = found && await store.updateAccount(found.id, change);
    if (changed === undefined) throw notFound(`no account with email ${email}`);
    await recordAudit(store, CLI_ACTOR, 'account.changed', changed.id, auditedChange(change));
    return changed;
  });
  if (json) writeJson(io, accountJson(account));
  else if (change.budget !== undefined) io.stdout.write(`Budget of ${email}: ${budgetText(account.budget)}.\n`);
  else io.stdout.write(`Priority of ${email}: ${account.priority ?? 'the default'}.\n`);
  return EXIT_OK;
}
