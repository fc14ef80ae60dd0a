// The TCP peer's address, spelled as uWS's getRemoteAddressAsText() spells it (dotted IPv4; IPv6 as
// eight groups of four hex digits), but made from the binary form: each of those calls costs an
// ArrayBuffer, and the text one's conversion came on top, ~0.75 µs a request in all. An IPv4
// client's text is cached by its 32-bit address, so a returning one costs a Map lookup.
import type { HttpResponse } from './uws.ts';

const MAX_CACHED = 4096;
const ipv4Texts = new Map<number, string>();

export function peerAddress(res: HttpResponse): string {
  // A DataView, not a Uint8Array: the smaller of the two views, and it reads the words whole.
  const address = new DataView(res.getRemoteAddress());
  if (address.byteLength === 4) return ipv4Text(address.getUint32(0));
  if (address.byteLength === 16) return ipv6Text(address);
  return String.fromCharCode.apply(null, new Uint8Array(res.getRemoteAddressAsText()) as unknown as number[]);
}

function ipv4Text(address: number): string {
  let text = ipv4Texts.get(address);
  if (text === undefined) {
    // Addresses seen once each (a scan, a botnet) would grow it without end: it starts over.
    if (ipv4Texts.size === MAX_CACHED) ipv4Texts.clear();
    ipv4Texts.set(address, (text = `${address >>> 24}.${(address >>> 16) & 0xff}.${(address >>> 8) & 0xff}.${address & 0xff}`));
  }
  return text;
}

function ipv6Text(address: DataView): string {
  let text = '';
  for (let offset = 0; offset < 16; offset += 2) {
    if (offset > 0) text += ':';
    text += address.getUint16(offset).toString(16).padStart(4, '0');
  }
  return text;
}
