// `munja accounts password EMAIL`: gives an account (e.g. the first-start admin, or one made by the
// CLI) a dashboard password, piped or typed at the terminal, never as an argument. Every dashboard
// session of the account ends: whoever knew the old password is signed out.
import { CLI_ACTOR, recordAudit } from '../store/audit.ts';
import { PasswordHasher } from '../dashboard/password-hasher.ts';
import { passwordProblem } from '../dashboard/password-policy.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs } from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, notFound, writeJson, type CliIo } from './cli-io.ts';
import { accountJson } from './format.ts';
import { withStore } from './open-store.ts';
import { readPassword } from './read-password.ts';

export async function passwordCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, 'accounts password');
  const [rawEmail = ''] = expectPositionals(positionals, ['EMAIL'], 'accounts password');
  const email = parseAccountEmail(rawEmail);
  // Before asking for a password that could not be used.
  await withStore(io, async (store) => {
    if (await store.findAccountByEmail(email) === undefined) throw notFound(`no account with email ${email}`);
  });
  const password = await readPassword(io);
  const problem = passwordProblem(password);
  if (problem !== null) throw new CliError(EXIT_FAILURE, problem);
  const hash = await new PasswordHasher(1).hash(password);
  const account = await withStore(io, async (store) => {
    const found = await store.findAccountByEmail(email);
    if (found === undefined) throw notFound(`no account with email ${email}`);
    await store.setPasswordHash(found.id, hash);
    await store.deleteAccountSessions(found.id);
    await recordAudit(store, CLI_ACTOR, 'password.set', found.id);
    return found;
  });
  if (values.json) writeJson(io, accountJson(account));
  else io.stdout.write(`${email} can now sign in to the dashboard with that password.\n`);
  return EXIT_OK;
}
