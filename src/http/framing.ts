// Request framing uWS accepts but a proxy in front may read differently, so that the two disagree
// on where a body ends (request smuggling, RFC 9112 §6.1 and §6.3): refused.
// - Content-Length repeated (uWS takes the first).
// - Transfer-Encoding repeated, or any value but `chunked`: uWS decodes every Transfer-Encoding
//   as chunked (`xchunked`, `chunked, identity` and `gzip, chunked` alike), where a proxy may
//   forward the body as is or by its Content-Length.
// uWS itself refuses Content-Length with Transfer-Encoding, obs-fold lines, a space before the
// colon and bare LF line endings (400 or 505, then it closes), before any handler runs.
import type { RequestHead } from './request-head.ts';

const CHUNKED = /^[ \t]*chunked[ \t]*$/i;

/** True when the request's body boundary is ambiguous. */
export function ambiguousFraming(head: RequestHead): boolean {
  if (head.transferEncoding !== '' && !CHUNKED.test(head.transferEncoding)) return true;
  return head.contentLengths > 1 || head.transferEncodings > 1;
}
