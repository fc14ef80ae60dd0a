// On a store with no accounts, create an admin account and a first key so that the start command
// is all a newcomer needs. Never on a store that already has accounts.
import type { Store } from '../store/store.ts';
import { createApiKey } from './create-key.ts';

export const FIRST_ADMIN_EMAIL = 'admin@munja.local';

/** Returns the new key (to be shown once), or null when the store already had accounts. */
export async function createFirstKey(store: Store): Promise<string | null> {
  if ((await store.countAccounts()) > 0) return null;
  const created = await createApiKey(store, { accountEmail: FIRST_ADMIN_EMAIL, name: 'first key', createAccount: true, isAdmin: true });
  return created.key;
}

export function firstKeyBanner(key: string, baseUrl: string): string {
  return [
    '',
    'Munja created an admin account and its first API key. It is shown only now: keep it safe.',
    '',
    `  ${key}`,
    '',
    'Try it:',
    `  curl ${baseUrl}/v1/chat/completions -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"model":"auto","messages":[{"role":"user","content":"Hello!"}]}'`,
    '',
    `Dashboard: ${baseUrl}/dashboard — sign in as ${FIRST_ADMIN_EMAIL} after giving it a password:`,
    `  printf '%s' "$PASSWORD" | npx munja accounts password ${FIRST_ADMIN_EMAIL}`,
    '',
    '',
  ].join('\n');
}
