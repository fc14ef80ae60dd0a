import { describe, expect, it } from 'vitest';
import { ambiguousFraming } from '../../../src/http/framing.ts';
import { readRequestHead } from '../../../src/http/request-head.ts';
import type { HttpRequest } from '../../../src/http/uws.ts';

// uWS's HttpRequest as the head reader uses it: lower-case names, getHeader() gives the first line.
function request(lines: Array<[string, string]>): HttpRequest & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    getHeader: (name: string) => {
      lookups.push(name);
      return lines.find(([line]) => line === name)?.[1] ?? '';
    },
    forEach: (take: (name: string, value: string) => void) => {
      for (const [name, value] of lines) take(name, value);
    },
  } as unknown as HttpRequest & { lookups: string[] };
}

describe('reading a request head', () => {
  it('takes the first line of a repeated header, as getHeader() does', () => {
    const head = readRequestHead(request([
      ['authorization', 'Bearer a'], ['content-type', 'application/json'], ['authorization', 'Bearer b'],
      ['content-length', '2'], ['content-type', 'text/plain'], ['x-forwarded-for', '192.0.2.1'], ['x-forwarded-for', '192.0.2.2'],
    ]), true, true);
    expect({ ...head }).toMatchObject({
      authorization: 'Bearer a', contentType: 'application/json', contentLength: '2', transferEncoding: '', forwardedFor: '192.0.2.1',
      contentLengths: 1, transferEncodings: 0,
    });
  });

  it('walks the head of a request with a body header even when no body was expected', () => {
    const req = request([['content-length', '2'], ['content-length', '3'], ['authorization', 'Bearer a']]);
    const head = readRequestHead(req, false, false);
    expect(head.authorization).toBe('Bearer a');
    expect(head.contentLengths).toBe(2);
    expect(ambiguousFraming(head)).toBe(true);
  });

  it('looks up only the headers it needs on a request without a body', () => {
    const req = request([['authorization', 'Bearer a'], ['accept', '*/*'], ['x-forwarded-for', '192.0.2.1']]);
    const head = readRequestHead(req, false, false);
    expect(req.lookups).toEqual(['content-length', 'transfer-encoding', 'authorization', 'content-type']);
    expect({ ...head }).toMatchObject({ authorization: 'Bearer a', contentType: '', forwardedFor: '', contentLengths: 0 });
    expect(ambiguousFraming(head)).toBe(false);
  });

  it('gives the x-munja-session header from the walk, and none on the next request without it', () => {
    expect(readRequestHead(request([['content-length', '2'], ['x-munja-session', 'run-1']]), true, false).session).toBe('run-1');
    expect(readRequestHead(request([['content-length', '2']]), true, false).session).toBe('');
  });

  it('gives X-Forwarded-For only when the client address is taken from it', () => {
    const lines: Array<[string, string]> = [['content-length', '2'], ['x-forwarded-for', '192.0.2.1']];
    expect(readRequestHead(request(lines), true, false).forwardedFor).toBe('');
    expect(readRequestHead(request(lines), true, true).forwardedFor).toBe('192.0.2.1');
  });

  it('finds a Transfer-Encoding other than chunked ambiguous', () => {
    expect(ambiguousFraming(readRequestHead(request([['transfer-encoding', 'gzip, chunked']]), true, false))).toBe(true);
    expect(ambiguousFraming(readRequestHead(request([['transfer-encoding', ' Chunked ']]), true, false))).toBe(false);
  });
});
