// Reads a request body with a byte cap. The cap is enforced on the declared Content-Length before
// anything is read and again on the bytes received (chunked uploads), so an oversized body is
// refused without buffering the rest of it.
import type { RequestContext } from './request-context.ts';

export type BodyOutcome = { ok: true; body: Uint8Array } | { ok: false; tooLarge: true };

export function readBody(ctx: RequestContext, maxBytes: number, done: (outcome: BodyOutcome) => void): void {
  const declared = ctx.contentLength === '' ? -1 : Number(ctx.contentLength);
  if (declared > maxBytes) {
    // Must still attach onData: uWS requires a reader for a request that has a body.
    ctx.res.onData(() => {});
    done({ ok: false, tooLarge: true });
    return;
  }
  // uWS reuses the chunk's memory after the callback returns: every chunk is copied.
  let buffer: Uint8Array | null = declared > 0 ? new Uint8Array(declared) : null;
  let chunks: Uint8Array[] | null = null;
  let received = 0;
  let over = false;
  ctx.res.onData((chunk, isLast) => {
    if (over) return;
    const size = chunk.byteLength;
    if (received + size > maxBytes || (buffer !== null && received + size > buffer.byteLength)) {
      over = true;
      buffer = null;
      chunks = null;
      done({ ok: false, tooLarge: true });
      return;
    }
    if (buffer !== null) buffer.set(new Uint8Array(chunk), received);
    else (chunks ??= []).push(new Uint8Array(chunk.slice(0)));
    received += size;
    if (!isLast) return;
    done({ ok: true, body: buffer !== null ? buffer.subarray(0, received) : concat(chunks, received) });
  });
}

function concat(chunks: Uint8Array[] | null, size: number): Uint8Array {
  if (chunks === null) return new Uint8Array(0);
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
