// Request framing uWS accepts but a proxy in front may read differently. Two Content-Length
// headers let a front proxy and Munja disagree on where a body ends (request smuggling, RFC 9112
// §6.3): refused. (uWS itself refuses Content-Length with Transfer-Encoding.)
import type { HttpRequest } from './uws.ts';

export function repeatsContentLength(req: HttpRequest): boolean {
  let seen = 0;
  req.forEach((name) => {
    if (name === 'content-length') seen++;
  });
  return seen > 1;
}
