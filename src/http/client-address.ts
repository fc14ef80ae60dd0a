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

/**
 * What a per-address cap counts: an IPv4 address (IPv4-mapped IPv6 included) as is, an IPv6
 * address by its /64, which one subscriber usually holds whole.
 */
export function addressGroup(address: string): string {
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address.toLowerCase());
  if (groups === null) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** The eight groups of an IPv6 address (with a dotted IPv4 tail), or null if it is not one. */
function expandIpv6(address: string): number[] | null {
  const [head = '', tail, extra] = address.split('::');
  if (extra !== undefined) return null;
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').flatMap((group) => {
    if (group.includes('.')) {
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    }
    return [Number.parseInt(group, 16)];
  }));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? first : [...first, ...new Array<number>(Math.max(0, 8 - first.length - last.length)).fill(0), ...last];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : null;
}
