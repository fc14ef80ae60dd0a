// Issuing and rotating keys, shared by the operator CLI, the admin API and the server's first-start bootstrap.
// The full key exists only in the return value: the store keeps its digest.
import type { Account, ApiKeyRecord, KeyCacheMode, Priority, RecordBudget, Store } from '../store/store.ts';
import { digestApiKey, displayPrefix, generateApiKey, lastFour } from './api-key.ts';

export interface CreateApiKeyOptions {
  readonly accountEmail: string;
  readonly name?: string;
  /** Model ids the key may use; null or absent means all. */
  readonly models?: readonly string[] | null;
  readonly rpm?: number | null;
  readonly tpm?: number | null;
  /** Create the account when it does not exist (otherwise that is an UnknownAccountError). */
  readonly createAccount?: boolean;
  /** Only applies when the account is created here. */
  readonly isAdmin?: boolean;
  /** Refuse (KeyCapError) when the account already has this many keys that are not revoked. */
  readonly maxKeys?: number;
  /** The admin scope: the key works on the admin API only. */
  readonly admin?: boolean;
  /** Unix ms; absent or null: never. */
  readonly expiresAt?: number | null;
  readonly budget?: RecordBudget | null;
  readonly priority?: Priority | null;
  readonly cache?: KeyCacheMode | null;
}

export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  readonly account: Account;
  /** The full key: show it once, never store or log it. */
  readonly key: string;
}

export class UnknownAccountError extends Error {
  readonly email: string;

  constructor(email: string) {
    super(`no account with email ${email}`);
    this.name = 'UnknownAccountError';
    this.email = email;
  }
}

/** A new secret for a key (same id, limits and usage); the old one works until `graceUntil` (Unix ms). */
export async function rotateApiKey(store: Store, keyId: string, graceUntil: number): Promise<{ record: ApiKeyRecord; key: string } | undefined> {
  const key = generateApiKey();
  const record = await store.rotateKey(keyId, {
    digest: digestApiKey(key, await store.keySecret()),
    prefix: displayPrefix(key),
    lastFour: lastFour(key),
  }, graceUntil);
  return record && Object.freeze({ record, key });
}

export async function createApiKey(store: Store, options: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const existing = await store.findAccountByEmail(options.accountEmail);
  let account: Account;
  if (existing !== undefined) {
    account = existing;
  } else if (options.createAccount) {
    account = await store.createAccount(options.accountEmail, { isAdmin: options.isAdmin ?? false });
  } else {
    throw new UnknownAccountError(options.accountEmail);
  }

  const key = generateApiKey();
  const record = await store.createKey({
    accountId: account.id,
    digest: digestApiKey(key, await store.keySecret()),
    name: options.name ?? '',
    prefix: displayPrefix(key),
    lastFour: lastFour(key),
    models: options.models ?? null,
    limits: { rpm: options.rpm ?? null, tpm: options.tpm ?? null },
    admin: options.admin ?? false,
    expiresAt: options.expiresAt ?? null,
    budget: options.budget ?? null,
    priority: options.priority ?? null,
    cache: options.cache ?? null,
  }, options.maxKeys);
  return Object.freeze({ record, account, key });
}
