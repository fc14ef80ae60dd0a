// `munja cache purge`: drops cached replies from the response cache on Redis: an account's, those
// a key filled, or all. Audited as `cache.purged`.
// The embedded cache lives in each serving process's memory; a restart empties it.
import { type PurgeScope, purgeTarget } from '../cache/memory-reply-store.ts';
import { RedisReplyStore } from '../cache/redis-reply-store.ts';
import { CLI_ACTOR, recordAudit } from '../store/audit.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs } from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';
import { withStore } from './open-store.ts';

export async function cacheCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'purge') throw usageError(sub === undefined ? 'cache needs a subcommand: purge' : `unknown cache subcommand '${sub}'`, 'cache');
  const { values, positionals } = parseCommandArgs(rest, { json: { type: 'boolean' }, account: { type: 'string' }, key: { type: 'string' }, all: { type: 'boolean' } }, 'cache purge');
  expectPositionals(positionals, [], 'cache purge');
  if ([values.account !== undefined, values.key !== undefined, values.all === true].filter(Boolean).length !== 1) {
    throw usageError('give exactly one of --account EMAIL, --key KEY_ID or --all', 'cache purge');
  }
  const email = values.account === undefined ? undefined : parseAccountEmail(values.account, '--account email');
  const keyId = values.key;
  const dropped = await withStore(io, async (store) => {
    if (store.redis === null) {
      throw new CliError(EXIT_FAILURE, 'The response cache is kept on Redis only with REDIS_URL; without it each serving process holds its own in memory, emptied by a restart (or purged with DELETE /v1/admin/cache).');
    }
    // The byte cap only matters when storing.
    const replies = new RedisReplyStore(store.redis, 1);
    let scope: PurgeScope = { all: true };
    if (email !== undefined) {
      const account = await store.findAccountByEmail(email);
      if (account === undefined) throw new CliError(EXIT_FAILURE, `No account ${email}.`);
      scope = { accountId: account.id };
    } else if (keyId !== undefined) {
      const key = await store.findKeyById(keyId);
      if (key === undefined) throw new CliError(EXIT_FAILURE, `No key ${keyId}.`);
      scope = { keyId: key.id, accountId: key.accountId };
    }
    const purged = await replies.purge(scope);
    await recordAudit(store, CLI_ACTOR, 'cache.purged', purgeTarget(scope), { purged });
    return purged;
  });
  const whose = email === undefined ? keyId === undefined ? '' : ` filled by ${keyId}` : ` of ${email}`;
  if (values.json) writeJson(io, { purged: dropped });
  else io.stdout.write(`Purged ${dropped} cached ${dropped === 1 ? 'reply' : 'replies'}${whose}.\n`);
  return EXIT_OK;
}
