// `munja keys create|list|update|revoke`.
import { digestApiKey } from '../auth/api-key.ts';
import { createApiKey } from '../auth/create-key.ts';
import { maxKeysPerAccountFrom } from '../config/load-config.ts';
import { auditedChange, CLI_ACTOR, recordAudit } from '../store/audit.ts';
import { type KeyChange, KeyCapError } from '../store/store.ts';
import { ConfigError, modelIdsFrom } from '../config/load-config.ts';
import {
  expectPositionals, parseAccountEmail, parseCommandArgs, parseEmail, parseModels, parseName, parsePositiveInteger,
} from './arguments.ts';
import { CliError, EXIT_FAILURE, EXIT_OK, notFound, usageError, writeJson, type CliIo } from './cli-io.ts';
import { formatTable, keyJson, keyStatus, maskedKey, shortTime } from './format.ts';
import { keysWithEmails } from './keys-of-account.ts';
import { withStore } from './open-store.ts';
import { KEY_RECORD_OPTIONS, NONE, parseKeyRecordOptions } from './record-options.ts';

const JSON_OPTION = { json: { type: 'boolean' } } as const;

export async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': return createKey(rest, io);
    case 'list': return listKeys(rest, io);
    case 'update': return updateKey(rest, io);
    case 'revoke': return revokeKey(rest, io);
    case undefined: throw usageError('missing keys subcommand (create, list, update or revoke)', 'keys');
    default: throw usageError(`unknown keys subcommand '${sub}' (create, list, update or revoke)`, 'keys');
  }
}

function configuredModels(io: CliIo): string[] {
  try {
    return modelIdsFrom(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(EXIT_FAILURE, `cannot read the configured models: ${error.message}`);
    throw error;
  }
}

async function createKey(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...JSON_OPTION,
    account: { type: 'string' }, name: { type: 'string' }, models: { type: 'string' },
    rpm: { type: 'string' }, tpm: { type: 'string' }, admin: { type: 'boolean' }, ...KEY_RECORD_OPTIONS,
  }, 'keys create');
  expectPositionals(positionals, [], 'keys create');
  if (values.account === undefined) throw usageError('missing --account EMAIL', 'keys create');
  const options = {
    accountEmail: parseEmail(values.account, '--account email'),
    name: parseName(values.name),
    models: parseModels(values.models, values.models === undefined ? [] : configuredModels(io)),
    rpm: parsePositiveInteger(values.rpm, '--rpm'),
    tpm: parsePositiveInteger(values.tpm, '--tpm'),
    createAccount: true,
    admin: values.admin === true,
  };
  const fields = parseKeyRecordOptions(values, 'keys create');

  const maxKeys = maxKeysPerAccountFrom(io.env);
  const { record, account, key } = await withStore(io, async (store) => {
    const existed = (await store.findAccountByEmail(options.accountEmail)) !== undefined;
    const created = await createApiKey(store, { ...options, ...fields, maxKeys }).catch((error: unknown) => {
      if (!(error instanceof KeyCapError)) throw error;
      throw new CliError(EXIT_FAILURE, `account ${options.accountEmail} already has ${maxKeys} keys that are not revoked `
        + '(server.dashboard.maxKeysPerAccount); revoke one first or raise the cap');
    });
    if (!existed) await recordAudit(store, CLI_ACTOR, 'account.created', created.account.id, { email: created.account.email, admin: created.account.isAdmin });
    const { record } = created;
    await recordAudit(store, CLI_ACTOR, 'key.created', record.id, {
      account: record.accountId, name: record.name, models: record.models, rpm: record.limits.rpm, tpm: record.limits.tpm, admin: record.admin,
      ...auditedChange(fields),
    });
    return created;
  });
  if (account.status === 'suspended') {
    io.stderr.write(`munja: warning: account ${account.email} is suspended; the key is refused until it is resumed\n`);
  }
  if (values.json) {
    const { expiresAt, budget, priority, cache } = keyJson(record, account.email);
    writeJson(io, {
      id: record.id, key, account: account.email, name: record.name,
      models: record.models, rpm: record.limits.rpm, tpm: record.limits.tpm, admin: record.admin, expiresAt, budget, priority, cache,
    });
  } else {
    if (record.admin) io.stdout.write('An admin key: it works on the admin API (/v1/admin/…) only.\n');
    io.stdout.write(`Created key ${record.id}${record.name ? ` "${record.name}"` : ''} for ${account.email}:\n\n`);
    io.stdout.write(`${key}\n\n`);
    io.stdout.write('Copy it now: it will not be shown again.\n');
  }
  return EXIT_OK;
}

/** What to say when the secret key was given where its id belongs: its id, when it is a known key. */
async function keyGivenForId(io: CliIo, key: string, sub = 'revoke'): Promise<string> {
  const found = await withStore(io, async (store) => store.findKeyByDigest(digestApiKey(key, await store.keySecret())));
  const told = `keys ${sub} takes the key's id (key_…), not the key itself`;
  return found === undefined
    ? `${told}: 'munja keys list' shows each key's id beside its first and last characters`
    : `${told}: run 'munja keys ${sub} ${found.key.id}'`;
}

async function listKeys(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { ...JSON_OPTION, account: { type: 'string' } }, 'keys list');
  expectPositionals(positionals, [], 'keys list');
  const email = values.account === undefined ? undefined : parseAccountEmail(values.account, '--account email');

  const { keys, emails } = await withStore(io, (store) => keysWithEmails(store, email));

  const emailOf = (accountId: string) => emails.get(accountId) ?? '?';
  if (values.json) {
    writeJson(io, keys.map((key) => keyJson(key, emailOf(key.accountId))));
  } else if (keys.length === 0) {
    io.stdout.write('No keys.\n');
  } else {
    const header = ['ID', 'NAME', 'KEY', 'ACCOUNT', 'CREATED', 'LAST USED', 'STATUS'];
    io.stdout.write(formatTable(header, keys.map((key) => [
      key.id, key.name || '-', maskedKey(key), emailOf(key.accountId),
      shortTime(key.createdAt), shortTime(key.lastUsedAt), keyStatus(key),
    ])));
  }
  return EXIT_OK;
}

/** `munja keys update KEY_ID [--name …] [--models …|none] [--rpm N|none] [--tpm N|none]` plus the record options. */
async function updateKey(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    ...JSON_OPTION, name: { type: 'string' }, models: { type: 'string' }, rpm: { type: 'string' }, tpm: { type: 'string' }, ...KEY_RECORD_OPTIONS,
  }, 'keys update');
  const [keyId = ''] = expectPositionals(positionals, ['KEY_ID'], 'keys update');
  if (keyId.startsWith('sk_')) throw usageError(await keyGivenForId(io, keyId, 'update'), 'keys update');
  const limit = (value: string | undefined, option: string) => (value?.trim() === NONE ? null : parsePositiveInteger(value, option) ?? undefined);
  const change: KeyChange = {
    ...(values.name === undefined ? {} : { name: parseName(values.name) }),
    ...(values.models === undefined ? {} : { models: values.models.trim() === NONE ? null : parseModels(values.models, configuredModels(io)) }),
    ...(values.rpm === undefined ? {} : { rpm: limit(values.rpm, '--rpm') }),
    ...(values.tpm === undefined ? {} : { tpm: limit(values.tpm, '--tpm') }),
    ...parseKeyRecordOptions(values, 'keys update'),
  };
  if (Object.keys(change).length === 0) {
    throw usageError('nothing to change: give --name, --models, --rpm, --tpm, --budget, --priority, --cache, --expires-at or --expires-in', 'keys update');
  }
  const { key, email } = await withStore(io, async (store) => {
    const found = await store.findKeyById(keyId);
    if (found === undefined) throw notFound(`no key with id ${keyId}; 'munja keys list' shows the ids`);
    if (found.revokedAt !== null) throw new CliError(EXIT_FAILURE, `key ${keyId} is revoked; a revoked key cannot be changed`);
    const key = await store.updateKey(keyId, change);
    if (key === undefined) throw notFound(`no key with id ${keyId}; 'munja keys list' shows the ids`);
    await recordAudit(store, CLI_ACTOR, 'key.changed', key.id, auditedChange(change));
    return { key, email: (await store.findAccountById(key.accountId))?.email ?? '?' };
  });
  if (values.json) writeJson(io, keyJson(key, email));
  else io.stdout.write(`Updated key ${key.id} (${maskedKey(key)}, ${email}): ${Object.keys(change).join(', ')}.\n`);
  return EXIT_OK;
}

async function revokeKey(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, JSON_OPTION, 'keys revoke');
  const [keyId = ''] = expectPositionals(positionals, ['KEY_ID'], 'keys revoke');
  if (keyId.startsWith('sk_')) throw usageError(await keyGivenForId(io, keyId), 'keys revoke');

  const before = Date.now();
  const { key, email } = await withStore(io, async (store) => {
    const key = await store.revokeKey(keyId);
    if (key === undefined) throw notFound(`no key with id ${keyId}; 'munja keys list' shows the ids`);
    if (key.revokedAt !== null && key.revokedAt >= before) await recordAudit(store, CLI_ACTOR, 'key.revoked', key.id);
    return { key, email: (await store.findAccountById(key.accountId))?.email ?? '?' };
  });
  // Revoking twice keeps the first time, so an earlier time means it was revoked already.
  const already = key.revokedAt !== null && key.revokedAt < before;
  if (values.json) writeJson(io, { ...keyJson(key, email), alreadyRevoked: already });
  else if (already) io.stdout.write(`Key ${key.id} (${maskedKey(key)}, ${email}) was already revoked at ${shortTime(key.revokedAt)}; nothing changed.\n`);
  else io.stdout.write(`Revoked key ${key.id} (${maskedKey(key)}, ${email}) at ${shortTime(key.revokedAt)}.\n`);
  return EXIT_OK;
}
