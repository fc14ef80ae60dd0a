import { describe, expect, it } from 'vitest';
import { checkSameOrigin } from '../../../src/dashboard/same-origin.ts';
import type { DashboardHeaders } from '../../../src/http/request-context.ts';

function headers(overrides: Partial<DashboardHeaders>): DashboardHeaders {
  return { cookie: '', origin: '', host: 'munja.example:8443', secFetchSite: '', csrfToken: '', ifNoneMatch: '', forwardedFor: '', remoteAddress: '', ...overrides };
}

describe('checkSameOrigin', () => {
  it('passes the dashboard itself and programs that send neither header', () => {
    expect(() => checkSameOrigin(headers({ secFetchSite: 'same-origin', origin: 'https://munja.example:8443' }))).not.toThrow();
    expect(() => checkSameOrigin(headers({ origin: 'https://MUNJA.example:8443' }))).not.toThrow();
    expect(() => checkSameOrigin(headers({}))).not.toThrow();
  });

  it.each([
    { secFetchSite: 'cross-site' },
    { secFetchSite: 'same-site' },
    { secFetchSite: 'none' },
    { origin: 'https://evil.example' },
    { origin: 'https://munja.example' },
    { origin: 'null' },
    { secFetchSite: 'same-origin', origin: 'https://evil.example' },
  ])('refuses %o with csrf_failed', (overrides) => {
    expect(() => checkSameOrigin(headers(overrides))).toThrow(expect.objectContaining({ code: 'csrf_failed', status: 403 }));
  });
});
