// The unit sign-up and sign-in limits count by: an IPv4 address, or the /64 network of an IPv6 one
// (one subscriber usually gets a whole /64, so counting single IPv6 addresses would let one person
// count as 2^64 people). IPv4-mapped IPv6 (`::ffff:192.0.2.1`) counts as its IPv4 address.
import { isIPv4, isIPv6 } from 'node:net';

export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of an IPv6 address, without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head = '', tail] = address.toLowerCase().split('%')[0]!.split('::');
  const parts = (text: string) => (text === '' ? [] : text.split(':'));
  const front = parts(head);
  const back = tail === undefined ? [] : parts(tail);
  const lastBack = back.at(-1) ?? front.at(-1) ?? '';
  // An embedded IPv4 tail (::1.2.3.4) takes two hextets; the network part never depends on it.
  const tailWidth = lastBack.includes('.') ? 1 : 0;
  const missing = 8 - front.length - back.length - tailWidth;
  return [...front, ...Array<string>(Math.max(missing, 0)).fill('0'), ...back].map((part) => part.replace(/^0+(?=.)/, ''));
}
