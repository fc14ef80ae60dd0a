// The TCP peer's address, spelled as uWS's getRemoteAddressAsText() spells it (dotted IPv4; IPv6 as
// eight groups of four hex digits), but made from the binary form: each of those calls costs an
// ArrayBuffer, and the text one's conversion came on top, ~0.75 µs a request in all. An IPv4
// client's text is cached by its 32-bit address, so a returning one costs a Map lookup.
import type { HttpResponse } from './uws.ts';

const MAX_CACHED = 4096;
const ipv4Texts = new Map<number, string>();

export function peerAddress(res: HttpResponse): string {
  const bytes = new Uint8Array(res.getRemoteAddress());
  if (bytes.length === 4) return ipv4Text(bytes);
  if (bytes.length === 16) return ipv6Text(bytes);
  return String.fromCharCode.apply(null, new Uint8Array(res.getRemoteAddressAsText()) as unknown as number[]);
}

function ipv4Text(bytes: Uint8Array): string {
  const a = bytes[0] as number;
  const b = bytes[1] as number;
  const c = bytes[2] as number;
  const d = bytes[3] as number;
  const key = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  let text = ipv4Texts.get(key);
  if (text === undefined) {
    // Addresses seen once each (a scan, a botnet) would grow it without end: it starts over.
    if (ipv4Texts.size === MAX_CACHED) ipv4Texts.clear();
    ipv4Texts.set(key, (text = `${a}.${b}.${c}.${d}`));
  }
  return text;
}

function ipv6Text(bytes: Uint8Array): string {
  let text = '';
  for (let index = 0; index < 16; index += 2) {
    if (index > 0) text += ':';
    text += (((bytes[index] as number) << 8) | (bytes[index + 1] as number)).toString(16).padStart(4, '0');
  }
  return text;
}
