// Reads a request body. Attached before anything asynchronous (uWS hands body data only to a reader
// attached in the handler), it holds what arrives while the handler checks the key — pausing the
// socket if more is on its way — and reads the rest once read() is called. The buffer grows with
// what arrives (never from the declared Content-Length) up to the byte cap (413) and within the
// process-wide budget (503). The deadline is armed only once a body arrives in pieces: most bodies
// come whole with their headers and never pay for a timer. (A client that sends nothing at all is
// closed by uWS's own idle timeout.)
//
// A request refused before its body has all arrived must still let the client see the refusal: a
// close with unread data makes the kernel send a reset, which can destroy the answer before the
// client reads it (and SDKs retry a reset, uploading the body again). So the refusal goes out at
// once, chunked and marked `Connection: close`, and its end is held back while the rest of the
// body is read and discarded (as nginx's lingering close does). When the body ends, or the client
// has sent nothing for a while, the response ends cleanly and the client closes; uWS cannot add
// its own close to a chunked response, and its timeout (~30 s with this build) closes a connection
// whose client does not. A client still sending after a bounded time or size gets the end too, but
// is no longer read from (the socket is paused, so it cannot make us read without end), and uWS's
// timeout closes it: closing at once would reset the connection, which lingering exists to avoid.
import { ApiError } from '../errors/api-error.ts';
import { LingeringClose } from './lingering-close.ts';
import type { RequestContext } from './request-context.ts';

/** Named as the server config names them, so that the config itself serves: no object per request. */
export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
}

const DISCARD_ALL: BodyLimits = { maxBodyBytes: 0, bodyTimeoutMs: 0 };

/**
 * The client went away before its body had arrived: nothing to answer, nothing to report loudly.
 * An ApiError (with no stack), so that any handler treats it as an answer, not as a fault.
 */
export class ClientGoneError extends ApiError {
  constructor() {
    super('client_closed');
  }
}

const FIRST_CAPACITY = 16 * 1024;

/** A whole body: a copy, or uWS's own memory lent as it came (readThen), with no view made of it. */
export type Body = Uint8Array | ArrayBuffer;

/** What readThen() hands the body to, or the reason there is none: one object, not two callbacks. */
export interface BodyConsumer {
  /** The whole body; it may be lent (see readThen). */
  bodyRead(body: Body): void;
  /** What read() would reject with. */
  bodyFailed(error: unknown): void;
}

export class BodyReader {
  readonly #ctx: RequestContext;
  readonly #limits: BodyLimits;
  #buffer: Uint8Array<ArrayBuffer> | null = null;
  #received = 0;
  #complete = false;
  #paused = false;
  #failure: ApiError | null = null;
  #waiting: BodyConsumer | null = null;
  /** The waiting consumer may be lent the body (readThen) rather than given a copy (read). */
  #mayLend = false;
  #timer: NodeJS.Timeout | null = null;
  // After a refusal: everything that comes is discarded, and the response ends once lingering stops.
  #linger: LingeringClose | null = null;

  /** The buffer counts against the process-wide budget that the request carries (ctx.bodyBudget). */
  constructor(ctx: RequestContext, limits: BodyLimits) {
    this.#ctx = ctx;
    this.#limits = limits;
    ctx.body = this;
    const declared = ctx.contentLength === '' ? -1 : Number(ctx.contentLength);
    if (declared > limits.maxBodyBytes) this.#fail(tooLarge(limits.maxBodyBytes));
    if (!ctx.hasBody) this.#complete = true;
    // Bound rather than a closure: a closure over `this` comes with a context of its own.
    else ctx.res.onData(this.#onData.bind(this));
  }

  /** A reader for a request refused before its handler ran: whatever the body holds is discarded. */
  static toDiscard(ctx: RequestContext): BodyReader {
    return new BodyReader(ctx, DISCARD_ALL);
  }

  /** The client is still sending the body: answering now needs a lingering close. */
  get unread(): boolean {
    return !this.#complete;
  }

  /** The whole body when it has all arrived and nothing failed (most bodies come with their headers); else null: read(). */
  readNow(): Uint8Array | null {
    return this.#complete && this.#failure === null && !this.#ctx.aborted ? this.#take() : null;
  }

  /** The whole body, or an ApiError (413, 408, 503 overloaded), or ClientGoneError. */
  read(): Promise<Uint8Array> {
    // Never lent, so always the Uint8Array of #take().
    return new Promise((resolve, reject) => this.#whenRead({ bodyRead: resolve as (body: Body) => void, bodyFailed: reject }, false));
  }

  /**
   * read() without a promise: `consumer.bodyRead` gets the whole body as soon as it has all arrived
   * (at once if it has), `bodyFailed` what read() would reject with. A body that follows its headers
   * arrives just after the handler returns, and the request goes on inside uWS's data callback.
   *
   * A body that arrives in one piece is lent, not copied: it is uWS's own memory, valid until
   * `bodyRead` returns (uWS detaches it then). It must not keep it; it may decode or copy it.
   */
  readThen(consumer: BodyConsumer): void {
    this.#whenRead(consumer, true);
  }

  #whenRead(consumer: BodyConsumer, mayLend: boolean): void {
    if (this.#failure !== null) return consumer.bodyFailed(this.#failure);
    if (this.#ctx.aborted) return consumer.bodyFailed(new ClientGoneError());
    if (this.#complete) return consumer.bodyRead(this.#take());
    this.#waiting = consumer;
    this.#mayLend = mayLend;
    if (this.#paused) {
      this.#paused = false;
      this.#ctx.res.resume();
    }
  }

  /** The client went away (uWS's onAborted). */
  abort(): void {
    this.#linger?.stop();
    this.#settle(new ClientGoneError());
  }

  /** Gives the buffer back to the budget; called when the request is done, however it ended. */
  release(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#buffer !== null) this.#ctx.bodyBudget.give(this.#buffer.byteLength);
    this.#buffer = null;
  }

  /**
   * The refusal is being written without its end (uWS would close at once): discard the rest of
   * the body, then end the response. The caller checked `unread`.
   */
  lingerThenClose(): void {
    this.release();
    this.#linger = new LingeringClose(this.#ctx);
    if (this.#paused) {
      this.#paused = false;
      this.#ctx.res.resume();
    }
  }

  #onData(chunk: ArrayBuffer, isLast: boolean): void {
    if (isLast) this.#complete = true;
    if (this.#linger !== null) return this.#linger.discard(chunk.byteLength, isLast);
    if (this.#failure !== null || this.#ctx.aborted) return;
    const size = chunk.byteLength;
    if (this.#received + size > this.#limits.maxBodyBytes) return this.#fail(tooLarge(this.#limits.maxBodyBytes));
    if (isLast && this.#received === 0 && this.#waiting !== null && this.#mayLend) return this.#lend(chunk);
    if (!this.#reserve(this.#received + size, isLast)) return this.#fail(new ApiError('overloaded', { headers: { 'retry-after': '1' } }));
    // uWS reuses the chunk's memory after the callback returns: it is copied.
    if (size > 0) (this.#buffer as Uint8Array).set(new Uint8Array(chunk), this.#received);
    this.#received += size;
    if (isLast) {
      if (this.#waiting !== null) this.#settle(null);
      return;
    }
    if (this.#waiting === null && !this.#paused) {
      // The key is still being checked: hold what came, wait for the verdict before reading more.
      this.#paused = true;
      this.#ctx.res.pause();
    }
    this.#timer ??= setTimeout(() => this.#fail(new ApiError('request_timeout')), this.#limits.bodyTimeoutMs);
  }

  /**
   * Grows the buffer (doubling, up to the cap) to hold `size` bytes; false if the budget cannot.
   * A body that comes whole in one piece (most do) gets a buffer of its own size: a 16 KiB buffer
   * per request was most of a small request's allocation, and its external memory drove the GC.
   */
  #reserve(size: number, whole: boolean): boolean {
    const capacity = this.#buffer?.byteLength ?? 0;
    if (size <= capacity) return true;
    const grown = whole && capacity === 0 ? size : Math.min(this.#limits.maxBodyBytes, Math.max(size, capacity * 2, FIRST_CAPACITY));
    if (!this.#ctx.bodyBudget.take(grown - capacity)) return false;
    // transfer() moves the bytes and frees the old memory at once: a copy into a new buffer left the
    // old one to the collector, so stalled bodies could hold about twice what they had received.
    this.#buffer = this.#buffer === null ? new Uint8Array(grown) : new Uint8Array(this.#buffer.buffer.transfer(grown));
    return true;
  }

  #take(): Uint8Array {
    const body = this.#buffer === null ? new Uint8Array(0) : this.#buffer.subarray(0, this.#received);
    this.release();
    return body;
  }

  /** The whole body came in one piece to a reader that only looks at it (readThen): no buffer, no copy, no view. */
  #lend(body: ArrayBuffer): void {
    const waiting = this.#waiting as BodyConsumer;
    this.#waiting = null;
    waiting.bodyRead(body);
  }

  #fail(error: ApiError): void {
    this.#failure = error;
    this.#settle(error);
  }

  /** Ends a pending read(): with the body (null) or an error. Frees the buffer either way. */
  #settle(error: unknown): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    if (error === null) {
      waiting?.bodyRead(this.#take());
      return;
    }
    this.release();
    waiting?.bodyFailed(error);
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('request_too_large', { message: `The request body is larger than the ${maxBytes} bytes this service accepts.` });
}
