// The client's address for sign-in throttling: the server-wide rule (http/client-address.ts) applied
// to the headers the dashboard copied.
import { clientAddress as resolveClientAddress } from '../http/client-address.ts';
import type { DashboardHeaders } from '../http/request-context.ts';

export function clientAddress(headers: DashboardHeaders, trustProxy: boolean): string {
  return resolveClientAddress(headers.remoteAddress, headers.forwardedFor, trustProxy);
}
