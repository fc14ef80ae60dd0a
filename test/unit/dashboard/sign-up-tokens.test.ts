// Issue 33: an invite, or a sign-up confirmation link, is used only once the account can be made.
// A password hash refused by a busy queue (503 overloaded, 429) leaves it usable.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config-types.ts';
import { dashboardConfig } from '../../../src/config/dashboard-config.ts';
import type { DashboardDeps } from '../../../src/dashboard/dashboard-deps.ts';
import type { DashboardRequest } from '../../../src/dashboard/dashboard-http.ts';
import { findIssuedToken, issueToken } from '../../../src/dashboard/one-time-tokens.ts';
import { signUp } from '../../../src/dashboard/sign-up-api.ts';
import { verifyEmail } from '../../../src/dashboard/verify-api.ts';
import { ApiError } from '../../../src/errors/api-error.ts';
import type { DashboardHeaders } from '../../../src/http/request-context.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';

const HEADERS: DashboardHeaders = { cookie: '', origin: '', host: '', secFetchSite: '', csrfToken: '', ifNoneMatch: '', forwardedFor: '', remoteAddress: '127.0.0.1' };
let dir: string;
let store: SqliteStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'munja-sign-up-'));
  store = SqliteStore.open(dir);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Dashboard deps whose password hasher always finds its queue full. */
function busyDeps(signUpMode: 'invite' | 'open'): DashboardDeps {
  return {
    config: { dashboard: dashboardConfig({ signUp: signUpMode }) } as unknown as Config,
    store,
    hasher: { hash: async () => { throw new ApiError('overloaded'); } },
    throttle: { countSignUp: async () => {} },
  } as unknown as DashboardDeps;
}

function request(body: Record<string, unknown>): DashboardRequest {
  return { ctx: null as never, headers: HEADERS, json: async () => body };
}

describe('tokens used only once the account can be made', () => {
  it('keeps an invite usable when the password hash is refused', async () => {
    const invite = await issueToken(store, 'invite', { by: 'acct_admin' }, 60_000);
    const attempt = signUp(busyDeps('invite'), request({ email: 'guest@example.com', password: 'correct horse battery', invite }));
    await expect(attempt).rejects.toMatchObject({ code: 'overloaded' });
    expect(await findIssuedToken(store, 'invite', invite)).toBeDefined();
    expect(await store.findAccountByEmail('guest@example.com')).toBeUndefined();
  });

  it('keeps a confirmation link usable when the password hash is refused', async () => {
    const token = await issueToken(store, 'verify', { email: 'mailed@example.com' }, 60_000);
    const attempt = verifyEmail(busyDeps('open'), request({ token, password: 'correct horse battery' }));
    await expect(attempt).rejects.toMatchObject({ code: 'overloaded' });
    expect(await findIssuedToken(store, 'verify', token)).toBeDefined();
    expect(await store.findAccountByEmail('mailed@example.com')).toBeUndefined();
  });
});
