// The keys `--account EMAIL` names (or every key without it), with their accounts' emails: what
// `munja keys list` and `munja usage` both print.
import type { ApiKeyRecord, Store } from '../store/store.ts';
import { notFound } from './cli-io.ts';

export async function keysWithEmails(store: Store, email: string | undefined): Promise<{ keys: ApiKeyRecord[]; emails: Map<string, string> }> {
  let accountId: string | undefined;
  if (email !== undefined) {
    const account = await store.findAccountByEmail(email);
    if (account === undefined) throw notFound(`no account with email ${email}`);
    accountId = account.id;
  }
  const keys = await store.listKeys(accountId);
  const emails = new Map<string, string>();
  for (const id of new Set(keys.map((key) => key.accountId))) emails.set(id, (await store.findAccountById(id))?.email ?? '?');
  return { keys, emails };
}
