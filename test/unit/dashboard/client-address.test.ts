import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../../src/dashboard/client-address.ts';
import type { DashboardHeaders } from '../../../src/http/request-context.ts';

const base: DashboardHeaders = {
  cookie: '', origin: '', host: '', secFetchSite: '', csrfToken: '', ifNoneMatch: '', forwardedFor: '203.0.113.9, 198.51.100.4', remoteAddress: '10.0.0.2',
};

describe('clientAddress', () => {
  it('is the TCP peer unless a proxy is trusted; then the entry the proxy added (the last)', () => {
    expect(clientAddress(base, false)).toBe('10.0.0.2');
    expect(clientAddress(base, true)).toBe('198.51.100.4');
    expect(clientAddress({ ...base, forwardedFor: '' }, true)).toBe('10.0.0.2');
  });
});
