// `munja audit`: the audit log, newest first — the same entries GET /v1/admin/audit answers.
import { expectPositionals, parseCommandArgs, parsePositiveInteger } from './arguments.ts';
import { EXIT_OK, usageError, writeJson, type CliIo } from './cli-io.ts';
import { formatTable, shortTime } from './format.ts';
import { withStore } from './open-store.ts';

const DEFAULT_ENTRIES = 50;
const MAX_ENTRIES = 10_000;

export async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    json: { type: 'boolean' }, actor: { type: 'string' }, target: { type: 'string' }, action: { type: 'string' }, limit: { type: 'string' },
  }, 'audit');
  expectPositionals(positionals, [], 'audit');
  const limit = parsePositiveInteger(values.limit, '--limit') ?? DEFAULT_ENTRIES;
  if (limit > MAX_ENTRIES) throw usageError(`--limit must be at most ${MAX_ENTRIES}`, 'audit');
  const query = {
    limit,
    ...(values.actor === undefined ? {} : { actor: values.actor }),
    ...(values.target === undefined ? {} : { target: values.target }),
    ...(values.action === undefined ? {} : { action: values.action }),
  };
  const entries = await withStore(io, (store) => store.listAudit(query));
  if (values.json) {
    writeJson(io, entries.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() })));
  } else if (entries.length === 0) {
    io.stdout.write('No audit entries.\n');
  } else {
    io.stdout.write(formatTable(['TIME', 'ACTOR', 'ADDRESS', 'ACTION', 'TARGET', 'FIELDS'], entries.map((entry) => [
      shortTime(entry.at), entry.actor, entry.address ?? '-', entry.action, entry.target || '-', JSON.stringify(entry.fields),
    ])));
  }
  return EXIT_OK;
}
