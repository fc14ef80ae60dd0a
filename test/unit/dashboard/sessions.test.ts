// Idle and absolute session lifetimes, with the clock moved by hand.
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dashboardConfig } from '../../../src/config/dashboard-config.ts';
import { Sessions } from '../../../src/dashboard/sessions.ts';
import type { DashboardHeaders } from '../../../src/http/request-context.ts';
import { SqliteStore } from '../../../src/store/sqlite-store.ts';

const MINUTE = 60_000;
let dir: string;
let store: SqliteStore;
let sessions: Sessions;

function headers(cookie: string, csrfToken = ''): DashboardHeaders {
  return { cookie, origin: '', host: '', secFetchSite: '', csrfToken, ifNoneMatch: '', forwardedFor: '', remoteAddress: '' };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-01-01T00:00:00Z') });
  dir = mkdtempSync(join(tmpdir(), 'munja-sessions-'));
  store = SqliteStore.open(dir);
  sessions = new Sessions(store, createSecretKey(randomBytes(32)), dashboardConfig({ sessionTtlMs: 60 * MINUTE, sessionIdleMs: 20 * MINUTE }));
});

afterEach(async () => {
  vi.useRealTimers();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signIn(): Promise<string> {
  const account = await store.createAccount('a@example.com');
  const started = await sessions.start(headers(''), account.id);
  return started.cookie.split(';')[0]!;
}

describe('Sessions', () => {
  it('ends after the idle time without use', async () => {
    const cookie = await signIn();
    vi.advanceTimersByTime(19 * MINUTE);
    await expect(sessions.require(headers(cookie))).resolves.toBeDefined();
    vi.advanceTimersByTime(19 * MINUTE); // used 19 minutes ago: still alive
    await expect(sessions.require(headers(cookie))).resolves.toBeDefined();
    vi.advanceTimersByTime(21 * MINUTE);
    await expect(sessions.require(headers(cookie))).rejects.toMatchObject({ code: 'not_signed_in' });
  });

  it('ends at the absolute lifetime however much it is used', async () => {
    const cookie = await signIn();
    for (let minutes = 10; minutes < 60; minutes += 10) {
      vi.advanceTimersByTime(10 * MINUTE);
      await expect(sessions.require(headers(cookie)), `${minutes} min`).resolves.toBeDefined();
    }
    vi.advanceTimersByTime(10 * MINUTE + 1);
    await expect(sessions.require(headers(cookie))).rejects.toMatchObject({ code: 'not_signed_in' });
  });

  it('checks the CSRF token of the session, and signing out ends it', async () => {
    const cookie = await signIn();
    const signedIn = await sessions.require(headers(cookie));
    expect(() => sessions.checkCsrfToken(headers(cookie, signedIn.csrfToken), signedIn)).not.toThrow();
    expect(() => sessions.checkCsrfToken(headers(cookie, 'x'), signedIn)).toThrow(expect.objectContaining({ code: 'csrf_failed' }));
    await sessions.end(headers(cookie));
    await expect(sessions.require(headers(cookie))).rejects.toMatchObject({ code: 'not_signed_in' });
  });
});
