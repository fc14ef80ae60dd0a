// `munja usage`: requests, tokens and spend over the last N days (UTC), per key (or per model,
// account or day with --by), from the counters the API writes (the dashboard's usage page reads
// the same), with the total.
import { ConfigError, currencyFrom } from '../config/load-config.ts';
import { formatMicros } from '../budget/price.ts';
import { lastDays } from '../dashboard/usage-api.ts';
import type { ApiKeyRecord } from '../store/store.ts';
import { expectPositionals, parseAccountEmail, parseCommandArgs, parsePositiveInteger } from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';
import { formatTable } from './format.ts';
import { keysWithEmails } from './keys-of-account.ts';
import { withStore } from './open-store.ts';
import { sumUsage, type Totals, USAGE_GROUPINGS, type UsageGrouping } from './usage-totals.ts';

const DEFAULT_DAYS = 30;
// Usage counters are kept 400 days.
const MAX_DAYS = 400;
/** How usage counted before models were is shown. */
const UNKNOWN_MODEL = '(unknown)';

export async function usageCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    json: { type: 'boolean' }, account: { type: 'string' }, days: { type: 'string' }, by: { type: 'string' },
  }, 'usage');
  expectPositionals(positionals, [], 'usage');
  const days = parsePositiveInteger(values.days, '--days') ?? DEFAULT_DAYS;
  if (days > MAX_DAYS) throw usageError(`--days must be at most ${MAX_DAYS} (usage is kept that long)`, 'usage');
  const by = parseGrouping(values.by);
  const email = values.account === undefined ? undefined : parseAccountEmail(values.account, '--account email');
  const currency = configuredCurrency(io);
  const range = lastDays(days, Date.now());
  const from = range[0]!;
  const to = range.at(-1)!;

  const { keys, rows, emails } = await withStore(io, async (store) => {
    const { keys, emails } = await keysWithEmails(store, email);
    const rows = keys.length === 0 ? [] : await store.usageByDay(keys.map((key) => key.id), from, to);
    return { keys, rows, emails };
  });
  const { groups, total } = sumUsage(rows, by, keys, emails);
  const keyOf = new Map(keys.map((key) => [key.id, key]));

  if (values.json) {
    const json = (totals: Totals) => ({ ...totals, cost: formatMicros(totals.costMicros) });
    const listed = [...groups].map(([group, totals]) => {
      switch (by) {
        case 'key': {
          const key = keyOf.get(group)!;
          return { id: key.id, name: key.name, account: emails.get(key.accountId) ?? '?', ...json(totals) };
        }
        case 'model': return { model: group === '' ? null : group, ...json(totals) };
        case 'account': return { account: group, ...json(totals) };
        case 'day': return { day: group, ...json(totals) };
      }
    });
    writeJson(io, { from, to, currency, [`${by}s`]: listed, total: json(total) });
    return EXIT_OK;
  }
  io.stdout.write(`Usage from ${from} to ${to} (UTC)${email === undefined ? '' : ` for ${email}`}, spend in ${currency}:\n\n`);
  if (groups.size === 0) {
    io.stdout.write('No requests.\n');
    return EXIT_OK;
  }
  const cells = (totals: Totals) => [
    ...[totals.requests, totals.promptTokens, totals.completionTokens].map((n) => n.toLocaleString('en-US')), formatMicros(totals.costMicros),
  ];
  const numbers = ['REQUESTS', 'PROMPT TOKENS', 'COMPLETION TOKENS', 'COST'];
  const lines = [...groups].map(([group, totals]) => [...labelsOf(by, group, keyOf, emails), ...cells(totals)]);
  const heads = by === 'key' ? ['KEY', 'NAME', 'ACCOUNT'] : [by.toUpperCase()];
  io.stdout.write(formatTable([...heads, ...numbers], [...lines, ['TOTAL', ...heads.slice(1).map(() => ''), ...cells(total)]]));
  return EXIT_OK;
}

/** A group's first cells in the table: a key's id, name and account; else its name. */
function labelsOf(by: UsageGrouping, group: string, keyOf: ReadonlyMap<string, ApiKeyRecord>, emails: ReadonlyMap<string, string>): string[] {
  if (by === 'model') return [group === '' ? UNKNOWN_MODEL : group];
  if (by !== 'key') return [group];
  const key = keyOf.get(group)!;
  return [key.id, key.name || '-', emails.get(key.accountId) ?? '?'];
}

function parseGrouping(value: string | undefined): UsageGrouping {
  if (value === undefined) return 'key';
  const grouping = USAGE_GROUPINGS.find((candidate) => candidate === value);
  if (grouping === undefined) throw usageError(`--by must be one of ${USAGE_GROUPINGS.join(', ')}`, 'usage');
  return grouping;
}

function configuredCurrency(io: CliIo): string {
  try {
    return currencyFrom(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(EXIT_FAILURE, `cannot read the currency (budgets.currency): ${error.message}`);
    throw error;
  }
}
