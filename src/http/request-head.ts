// The headers the server decides every request by. A request with a body has its whole head walked
// (uWS's forEach) for repeated framing lines (framing.ts), and the walk yields these values too:
// each getHeader() call makes its value's string anew, so they are taken from the walk instead.
import type { HttpRequest } from './uws.ts';

/** The head as read; one object for the process, valid until the next request's is read. */
export interface RequestHead {
  readonly authorization: string;
  readonly contentType: string;
  readonly contentLength: string;
  readonly transferEncoding: string;
  /** Read only when the client address is taken from it (server.trustProxy); '' otherwise. */
  readonly forwardedFor: string;
  /** x-munja-cache (the response cache's per-request switch); '' when absent or the head was not walked. */
  readonly cache: string;
  /** x-munja-session (the conversation, for prefix affinity); '' when absent or the head was not walked. */
  readonly session: string;
  /** Content-Length and Transfer-Encoding lines; 0 when the head was not walked (no body header). */
  readonly contentLengths: number;
  readonly transferEncodings: number;
}

const head = {
  authorization: '',
  contentType: '',
  contentLength: '',
  transferEncoding: '',
  forwardedFor: '',
  cache: '',
  session: '',
  contentLengths: 0,
  transferEncodings: 0,
  // The first line of a repeated header is its value, as getHeader() gives it.
  authorizations: 0,
  contentTypes: 0,
  forwardedFors: 0,
};

// forEach is synchronous: one callback for the process, not a closure per request.
function takeHeader(name: string, value: string): void {
  switch (name) {
    case 'authorization':
      if (head.authorizations++ === 0) head.authorization = value;
      break;
    case 'content-type':
      if (head.contentTypes++ === 0) head.contentType = value;
      break;
    case 'content-length':
      if (head.contentLengths++ === 0) head.contentLength = value;
      break;
    case 'transfer-encoding':
      if (head.transferEncodings++ === 0) head.transferEncoding = value;
      break;
    case 'x-forwarded-for':
      if (head.forwardedFors++ === 0) head.forwardedFor = value;
      break;
    case 'x-munja-cache':
      head.cache = value;
      break;
    case 'x-munja-session':
      head.session = value;
      break;
  }
}

/**
 * Reads the head of `req`: walked whole when `expectsBody` or when it has a body header, otherwise
 * (a request without a body, the usual GET) only the headers needed are looked up.
 */
export function readRequestHead(req: HttpRequest, expectsBody: boolean, trustProxy: boolean): RequestHead {
  head.authorization = '';
  head.contentType = '';
  head.contentLength = '';
  head.transferEncoding = '';
  head.forwardedFor = '';
  head.cache = '';
  head.session = '';
  head.contentLengths = 0;
  head.transferEncodings = 0;
  head.authorizations = 0;
  head.contentTypes = 0;
  head.forwardedFors = 0;
  if (expectsBody || req.getHeader('content-length') !== '' || req.getHeader('transfer-encoding') !== '') {
    req.forEach(takeHeader);
    if (!trustProxy) head.forwardedFor = '';
    return head;
  }
  head.authorization = req.getHeader('authorization');
  head.contentType = req.getHeader('content-type');
  if (trustProxy) head.forwardedFor = req.getHeader('x-forwarded-for');
  return head;
}
