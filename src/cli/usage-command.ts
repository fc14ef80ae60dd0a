// `munja usage`: requests and tokens per key over the last N days (UTC), from the counters the API
// writes (the dashboard's usage page reads the same), with the total.
import { lastDays } from '../dashboard/usage-api.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs, parsePositiveInteger } from './arguments.ts';
import { EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';
import { formatTable } from './format.ts';
import { keysWithEmails } from './keys-of-account.ts';
import { withStore } from './open-store.ts';

const DEFAULT_DAYS = 30;
// Usage counters are kept 400 days.
const MAX_DAYS = 400;

interface Totals { requests: number; promptTokens: number; completionTokens: number }

export async function usageCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' }, account: { type: 'string' }, days: { type: 'string' } }, 'usage');
  expectPositionals(positionals, [], 'usage');
  const days = parsePositiveInteger(values.days, '--days') ?? DEFAULT_DAYS;
  if (days > MAX_DAYS) throw usageError(`--days must be at most ${MAX_DAYS} (usage is kept that long)`, 'usage');
  const email = values.account === undefined ? undefined : parseAccountEmail(values.account, '--account email');
  const range = lastDays(days, Date.now());
  const from = range[0]!;
  const to = range.at(-1)!;

  const { keys, rows, emails } = await withStore(io, async (store) => {
    const { keys, emails } = await keysWithEmails(store, email);
    const rows = keys.length === 0 ? [] : await store.usageByDay(keys.map((key) => key.id), from, to);
    return { keys, rows, emails };
  });

  const perKey = new Map<string, Totals>();
  const total: Totals = { requests: 0, promptTokens: 0, completionTokens: 0 };
  for (const row of rows) {
    const sum = perKey.get(row.keyId) ?? { requests: 0, promptTokens: 0, completionTokens: 0 };
    for (const totals of [sum, total]) {
      totals.requests += row.requests;
      totals.promptTokens += row.promptTokens;
      totals.completionTokens += row.completionTokens;
    }
    perKey.set(row.keyId, sum);
  }
  const used = keys.filter((key) => perKey.has(key.id)).map((key) => ({
    id: key.id, name: key.name, account: emails.get(key.accountId) ?? '?', ...perKey.get(key.id)!,
  }));

  if (values.json) {
    writeJson(io, { from, to, keys: used, total });
    return EXIT_OK;
  }
  io.stdout.write(`Usage from ${from} to ${to} (UTC)${email === undefined ? '' : ` for ${email}`}:\n\n`);
  if (used.length === 0) {
    io.stdout.write('No requests.\n');
    return EXIT_OK;
  }
  const cells = (totals: Totals) => [totals.requests, totals.promptTokens, totals.completionTokens].map((n) => n.toLocaleString('en-US'));
  io.stdout.write(formatTable(
    ['KEY', 'NAME', 'ACCOUNT', 'REQUESTS', 'PROMPT TOKENS', 'COMPLETION TOKENS'],
    [...used.map((key) => [key.id, key.name || '-', key.account, ...cells(key)]), ['TOTAL', '', '', ...cells(total)]],
  ));
  return EXIT_OK;
}
