// Request framing uWS accepts but a proxy in front may read differently, so that the two disagree
// on where a body ends (request smuggling, RFC 9112 §6.1 and §6.3): refused.
// - Content-Length repeated (uWS takes the first).
// - Transfer-Encoding repeated, or any value but `chunked`: uWS decodes every Transfer-Encoding
//   as chunked (`xchunked`, `chunked, identity` and `gzip, chunked` alike), where a proxy may
//   forward the body as is or by its Content-Length.
// uWS itself refuses Content-Length with Transfer-Encoding, obs-fold lines, a space before the
// colon and bare LF line endings (400 or 505, then it closes), before any handler runs.
import type { HttpRequest } from './uws.ts';

const CHUNKED = /^[ \t]*chunked[ \t]*$/i;

// The count of one forEach (synchronous): a callback made once, not a closure per request.
let lengths = 0;
let encodings = 0;

function countFramingHeader(name: string): void {
  if (name === 'content-length') lengths++;
  else if (name === 'transfer-encoding') encodings++;
}

/** True when the request's body boundary is ambiguous; reads the headers only if it has a body header. */
export function ambiguousFraming(req: HttpRequest, contentLength: string): boolean {
  const transferEncoding = req.getHeader('transfer-encoding');
  if (contentLength === '' && transferEncoding === '') return false;
  if (transferEncoding !== '' && !CHUNKED.test(transferEncoding)) return true;
  lengths = 0;
  encodings = 0;
  req.forEach(countFramingHeader);
  return lengths > 1 || encodings > 1;
}

