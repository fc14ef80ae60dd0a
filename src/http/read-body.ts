// Reads a request body with a byte cap and a deadline. The cap is enforced on the declared
// Content-Length before anything is read and again on the bytes received (chunked uploads), so an
// oversized body is refused without buffering the rest of it. The deadline is armed only once a
// body arrives in pieces: most bodies come whole with their headers and never pay for a timer.
// (A client that sends nothing at all is closed by uWS's own idle timeout, about 30 s.)
import type { RequestContext } from './request-context.ts';

export type BodyOutcome = { ok: true; body: Uint8Array } | { ok: false; reason: 'too_large' | 'timed_out' };

export interface BodyLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** Returns a function that stops reading (the client went away). */
export function readBody(ctx: RequestContext, limits: BodyLimits, done: (outcome: BodyOutcome) => void): () => void {
  const { maxBytes } = limits;
  const declared = ctx.contentLength === '' ? -1 : Number(ctx.contentLength);
  if (declared > maxBytes) {
    // Must still attach onData: uWS requires a reader for a request that has a body.
    ctx.res.onData(() => {});
    done({ ok: false, reason: 'too_large' });
    return () => {};
  }
  // uWS reuses the chunk's memory after the callback returns: every chunk is copied.
  let buffer: Uint8Array | null = declared > 0 ? new Uint8Array(declared) : null;
  let chunks: Uint8Array[] | null = null;
  let received = 0;
  let finished = false;
  let timer: NodeJS.Timeout | null = null;
  const finish = (outcome: BodyOutcome) => {
    finished = true;
    buffer = null;
    chunks = null;
    if (timer !== null) clearTimeout(timer);
    done(outcome);
  };
  ctx.res.onData((chunk, isLast) => {
    if (finished) return;
    const size = chunk.byteLength;
    if (received + size > maxBytes || (buffer !== null && received + size > buffer.byteLength)) {
      finish({ ok: false, reason: 'too_large' });
      return;
    }
    if (buffer !== null) buffer.set(new Uint8Array(chunk), received);
    else (chunks ??= []).push(new Uint8Array(chunk.slice(0)));
    received += size;
    if (isLast) {
      const body = buffer !== null ? buffer.subarray(0, received) : concat(chunks, received);
      finish({ ok: true, body });
    } else if (timer === null) {
      timer = setTimeout(() => finish({ ok: false, reason: 'timed_out' }), limits.timeoutMs);
    }
  });
  return () => {
    if (timer !== null) clearTimeout(timer);
    finished = true;
  };
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
