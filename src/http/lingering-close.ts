// The end of a refusal sent while the client was still sending its body (see body-reader.ts): the
// rest of the body is discarded, and the response ends once the body has ended, the client has
// gone quiet, or the bounds below are passed. Made only for such a refusal, so that the state of
// lingering costs the requests that never linger nothing.
import type { RequestContext } from './request-context.ts';

/** Lingering after a refusal: at most this long in all… */
const LINGER_MAX_MS = 5_000;
/** …this long without a byte from the client… */
const LINGER_IDLE_MS = 1_000;
/** …and at most this many bytes discarded. */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;

export class LingeringClose {
  readonly #ctx: RequestContext;
  #lingering = true;
  #discarded = 0;
  #idleTimer: NodeJS.Timeout | null = null;
  #deadline: NodeJS.Timeout | null;

  constructor(ctx: RequestContext) {
    this.#ctx = ctx;
    this.#deadline = setTimeout(() => this.#end(true), LINGER_MAX_MS);
    this.#armIdle();
  }

  /** A piece of the body arrived, and is dropped. */
  discard(bytes: number, isLast: boolean): void {
    // The response may have ended already (the client went quiet, then sent more): no res calls.
    if (!this.#lingering) return;
    this.#discarded += bytes;
    if (isLast) this.#end(false);
    else if (this.#discarded > LINGER_MAX_BYTES) this.#end(true);
    else this.#armIdle();
  }

  /** Stops lingering without ending the response (the client went away). */
  stop(): void {
    this.#lingering = false;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    if (this.#deadline !== null) clearTimeout(this.#deadline);
    this.#idleTimer = null;
    this.#deadline = null;
  }

  /** (Re)starts the idle wait: a client that has gone quiet gets the refusal ended cleanly. */
  #armIdle(): void {
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#end(false), LINGER_IDLE_MS);
  }

  /**
   * Ends the refusal: the client has it whole and closes. A client still sending past the bounds
   * is no longer read from (the socket stays paused), and uWS's timeout closes the connection.
   */
  #end(cutOff: boolean): void {
    if (!this.#lingering) return;
    this.stop();
    if (this.#ctx.aborted) return;
    const res = this.#ctx.res;
    if (cutOff) res.pause();
    res.cork(() => res.end(''));
  }
}
