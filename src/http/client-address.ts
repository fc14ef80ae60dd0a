// The client's address, for the request log, the per-address cap and the dashboard's throttles.
// X-Forwarded-For is trusted only when the operator says a proxy sets it (server.trustProxy); then
// the last entry is the one that proxy added, and the earlier ones are whatever the client claimed.

export function clientAddress(peer: string, forwardedFor: string, trustProxy: boolean): string {
  if (trustProxy && forwardedFor !== '') {
    const last = forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1).trim();
    if (last !== '') return last.slice(0, 64);
  }
  return peer;
}
