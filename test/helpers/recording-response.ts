// A uWS response that records what reaches the socket, and a request context over it: unit tests
// relay a stream into them and read what a client would have received.
import type { HttpRequest, HttpResponse } from '../../src/http/uws.ts';
import { UNLIMITED_BODY_BUDGET } from '../../src/http/body-budget.ts';
import { RequestContext } from '../../src/http/request-context.ts';

/**
 * A uWS response that records what reaches the socket, one entry per cork (one send while the
 * cork's 16 KiB hold it), and counts the writes (each is copied into the cork buffer on its own).
 */
export function recordingResponse() {
  const sends: string[] = [];
  const counts = { writes: 0 };
  let corked: string[] | null = null;
  const out = (data: string | Uint8Array) => {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString();
    if (corked !== null) corked.push(text);
    else sends.push(text);
  };
  const res = {
    cork(callback: () => void) {
      corked = [];
      callback();
      sends.push(corked.join(''));
      corked = null;
      return res;
    },
    writeStatus(status: string) {
      out(`HTTP ${status}\n`);
      return res;
    },
    writeHeader: () => res,
    write(data: string | Uint8Array) {
      counts.writes += 1;
      out(data);
      return true;
    },
    end(data: string | Uint8Array = '') {
      out(data);
      return res;
    },
    onWritable: () => res,
    close: () => res,
    getRemoteAddress: () => new Uint8Array([127, 0, 0, 1]).buffer,
  };
  return { res: res as unknown as HttpResponse, sends, counts };
}

export function streamContext(res: HttpResponse): RequestContext {
  const req = { getCaseSensitiveMethod: () => 'POST', getUrl: () => '/v1/chat/completions', getHeader: () => '' };
  return new RequestContext(res, req as unknown as HttpRequest, { writeStallMs: 30_000, trustProxy: false, bodyBudget: UNLIMITED_BODY_BUDGET, ending: { end: () => {} } });
}
