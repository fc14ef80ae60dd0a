// `munja accounts list`: every account, oldest first, with its status, role and active keys.
import { expectPositionals, parseCommandArgs } from './arguments.ts';
import { EXIT_OK, writeJson, type CliIo } from './cli-io.ts';
import { accountJson, formatTable, shortTime } from './format.ts';
import { withStore } from './open-store.ts';

export async function listAccounts(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } }, 'accounts list');
  expectPositionals(positionals, [], 'accounts list');
  const { accounts, keys } = await withStore(io, async (store) => ({ accounts: await store.listAccounts(), keys: await store.listKeys() }));
  const activeKeys = new Map<string, number>();
  for (const key of keys) {
    if (key.revokedAt === null) activeKeys.set(key.accountId, (activeKeys.get(key.accountId) ?? 0) + 1);
  }
  const keysOf = (id: string) => activeKeys.get(id) ?? 0;
  if (values.json) {
    writeJson(io, accounts.map((account) => ({ ...accountJson(account), activeKeys: keysOf(account.id) })));
  } else if (accounts.length === 0) {
    io.stdout.write('No accounts.\n');
  } else {
    io.stdout.write(formatTable(['EMAIL', 'ID', 'STATUS', 'ADMIN', 'ACTIVE KEYS', 'CREATED'], accounts.map((account) => [
      account.email, account.id, account.status, account.isAdmin ? 'yes' : 'no', String(keysOf(account.id)), shortTime(account.createdAt),
    ])));
  }
  return EXIT_OK;
}
