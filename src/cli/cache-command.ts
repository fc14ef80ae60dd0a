// `munja cache purge`: drops cached replies from the response cache on Redis, an account's or all.
// The embedded cache lives in each serving process's memory; a restart empties it.
import { RedisReplyStore } from '../cache/redis-reply-store.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs } from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';
import { withStore } from './open-store.ts';

export async function cacheCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'purge') throw usageError(sub === undefined ? 'cache needs a subcommand: purge' : `unknown cache subcommand '${sub}'`, 'cache');
  const { values, positionals } = parseCommandArgs(rest, { json: { type: 'boolean' }, account: { type: 'string' }, all: { type: 'boolean' } }, 'cache purge');
  expectPositionals(positionals, [], 'cache purge');
  if ((values.account === undefined) === (values.all !== true)) throw usageError('give exactly one of --account EMAIL or --all', 'cache purge');
  const email = values.account === undefined ? undefined : parseAccountEmail(values.account, '--account email');
  const dropped = await withStore(io, async (store) => {
    if (store.redis === null) {
      throw new CliError(EXIT_FAILURE, 'The response cache is kept on Redis only with REDIS_URL; without it each serving process holds its own in memory, emptied by a restart.');
    }
    // The byte cap only matters when storing.
    const replies = new RedisReplyStore(store.redis, 1);
    if (email === undefined) return replies.purge({ all: true });
    const account = await store.findAccountByEmail(email);
    if (account === undefined) throw new CliError(EXIT_FAILURE, `No account ${email}.`);
    return replies.purge({ accountId: account.id });
  });
  if (values.json) writeJson(io, { purged: dropped });
  else io.stdout.write(`Purged ${dropped} cached ${dropped === 1 ? 'reply' : 'replies'}${email === undefined ? '' : ` of ${email}`}.\n`);
  return EXIT_OK;
}
