// A miss on its way to becoming an entry: the reply is kept only when it ended whole. A JSON reply
// is stored once the completion succeeded; a stream is recorded as it is written (the events as
// sent, after any translation into another protocol's events) and stored only when it ended as its
// protocol ends a stream, no error, the client still there and not past the entry bound. Neither
// is stored when the model did not finish or refused (whole-reply.ts).
import type { Principal } from '../auth/authenticator.ts';
import type { ReplyRecorder } from '../http/request-context.ts';
import { cachedReply, type ReplyForm } from './cached-reply.ts';
import type { ResponseCache } from './response-cache.ts';
import { isWholeReply } from './whole-reply.ts';

/** How a stream ended, as its request tells it. */
export interface StreamEnd {
  readonly aborted: boolean;
  readonly errorCode: string | null;
}

export class CacheFill implements ReplyRecorder {
  readonly #cache: ResponseCache;
  readonly #key: string;
  readonly #ttlMs: number;
  readonly #principal: Principal;
  readonly #form: ReplyForm;
  readonly #protocol: string;
  readonly #leads: boolean;
  #chunks: Buffer[] = [];
  #recorded = 0;
  #streamEnded = false;
  #done = false;

  constructor(cache: ResponseCache, key: string, ttlMs: number, principal: Principal, form: ReplyForm, protocol: string, leads: boolean) {
    this.#cache = cache;
    this.#key = key;
    this.#ttlMs = ttlMs;
    this.#principal = principal;
    this.#form = form;
    this.#protocol = protocol;
    this.#leads = leads;
  }

  record(events: string | Uint8Array): void {
    if (this.#done || events.length === 0) return;
    const bytes = typeof events === 'string' ? Buffer.from(events) : Buffer.from(events.buffer, events.byteOffset, events.byteLength);
    this.#recorded += bytes.length;
    // Past the bound the reply is served but not kept: recording stops.
    if (this.#recorded > this.#cache.config.maxEntryBytes) return this.abandon();
    // A lent view (uWS, a reused batch) is copied; a string's bytes are already our own.
    this.#chunks.push(typeof events === 'string' ? bytes : Buffer.from(bytes));
  }

  streamEnded(): void {
    this.#streamEnded = true;
  }

  /** A JSON completion was answered with `reply`. */
  finishJson(reply: Uint8Array | string): void {
    if (this.#done) return;
    const bytes = typeof reply === 'string' ? Buffer.from(reply) : Buffer.from(reply.buffer, reply.byteOffset, reply.byteLength);
    this.#end(bytes.length <= this.#cache.config.maxEntryBytes && isWholeReply(this.#protocol, 'json', bytes) ? this.#keep(Buffer.from(bytes)) : undefined);
  }

  /** The streamed completion's run ended. */
  finishStream(end: StreamEnd): void {
    if (this.#done) return;
    let stored: void | Promise<void> = undefined;
    if (this.#streamEnded && !end.aborted && end.errorCode === null) {
      const bytes = Buffer.concat(this.#chunks, this.#recorded);
      if (isWholeReply(this.#protocol, 'stream', bytes)) stored = this.#keep(bytes);
    }
    this.#end(stored);
  }

  /** Nothing is stored; waiting requests go on their own. */
  abandon(): void {
    this.#end(undefined);
  }

  /** Waiting requests look again once the reply is stored (or not). */
  #end(stored: void | Promise<void>): void {
    if (this.#done) return;
    this.#done = true;
    this.#chunks = [];
    if (!this.#leads) return;
    if (stored instanceof Promise) void stored.then(() => this.#cache.land(this.#key));
    else this.#cache.land(this.#key);
  }

  #keep(bytes: Buffer): void | Promise<void> {
    const { accountId, keyId } = this.#principal;
    return this.#cache.keep(this.#key, cachedReply(this.#form, bytes, accountId, keyId), this.#ttlMs);
  }
}
