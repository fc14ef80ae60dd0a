// The unit that per-address limits count by (open requests, sign-ups, sign-ins): an IPv4 address,
// or the /64 network of an IPv6 one (one subscriber usually gets a whole /64, so counting single
// IPv6 addresses would let one person count as 2^64 people). An IPv4-mapped IPv6 address counts as
// its IPv4 address, in every spelling: on a dual-stack listener uWS reports IPv4 clients as
// `0000:0000:0000:0000:0000:ffff:7f00:0001`, and grouping those by /64 would put every IPv4 client
// in one group.
import { isIPv6 } from 'node:net';

// Grouping an IPv6 address takes splits and arrays (~0.7 µs); every request on a dual-stack
// listener has one, and a returning client's is looked up instead.
const MAX_CACHED = 4096;
const groups = new Map<string, string>();

export function addressGroup(address: string): string {
  if (!address.includes(':')) return address;
  let group = groups.get(address);
  if (group === undefined) {
    // Addresses seen once each (one client walking its /64) would grow it without end: it starts over.
    if (groups.size === MAX_CACHED) groups.clear();
    groups.set(address, (group = ipv6Group(address)));
  }
  return group;
}

function ipv6Group(address: string): string {
  if (!isIPv6(address)) return address;
  const hextets = expandIpv6(address);
  if (hextets.slice(0, 5).every((part) => part === 0) && hextets[5] === 0xffff) {
    const [high = 0, low = 0] = hextets.slice(6);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return `${hextets.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (an IPv4 tail is two of them). */
function expandIpv6(address: string): number[] {
  const text = address.toLowerCase().split('%')[0]!;
  const ipv4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hexText = ipv4Tail === null
    ? text
    : `${text.slice(0, ipv4Tail.index)}${((Number(ipv4Tail[1]) << 8) | Number(ipv4Tail[2])).toString(16)}:${((Number(ipv4Tail[3]) << 8) | Number(ipv4Tail[4])).toString(16)}`;
  const [head = '', tail] = hexText.split('::');
  const parts = (part: string) => (part === '' ? [] : part.split(':').map((hex) => Number.parseInt(hex, 16)));
  const front = parts(head);
  const back = tail === undefined ? [] : parts(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}
