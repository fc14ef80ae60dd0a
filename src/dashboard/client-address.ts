// The client's address for sign-in throttling. X-Forwarded-For is trusted only when the operator
// says a proxy sets it (server.dashboard.trustProxy); then the last entry is the one that proxy
// added, and the earlier ones are whatever the client claimed.
import type { DashboardHeaders } from '../http/request-context.ts';

export function clientAddress(headers: DashboardHeaders, trustProxy: boolean): string {
  if (trustProxy) {
    const last = headers.forwardedFor.split(',').at(-1)?.trim();
    if (last) return last.slice(0, 64);
  }
  return headers.remoteAddress;
}
