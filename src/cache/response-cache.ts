// The response cache: which requests it answers, its entries, and single flight. A request is
// cached when its model's config, its key's setting or its `x-munja-cache: on` header turns the
// cache on, nothing turns it off (the header `off`, a key set `off`), and (unless the model's config
// allows others) the model would answer it the same way again: `temperature: 0`, or a `seed`. An
// entry is found whatever form the request asks, and served in it when it can be (cross-form.ts).
// Concurrent identical misses wait for the first one's answer, for at most singleFlightWaitMs; a
// first one that fails releases them to call on their own.
import { hash } from 'node:crypto';
import type { Principal } from '../auth/authenticator.ts';
import type { CacheConfig, ModelCacheConfig, ModelConfig } from '../config/config-types.ts';
import { DEFAULT_CACHE_TTL_SECONDS } from '../config/default-config.ts';
import { ApiError } from '../errors/api-error.ts';
import type { KeyCacheMode } from '../store/store.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { type CacheForm, cacheKey } from './cache-key.ts';
import { CacheFill } from './cache-fill.ts';
import type { CachedReply } from './cached-reply.ts';
import { inForm } from './cross-form.ts';
import { MemoryReplyStore, type PurgeScope, type ReplyStore } from './memory-reply-store.ts';

/** The request's `x-munja-cache` header, as read. */
export type CacheDirective = '' | 'on' | 'off' | 'refresh';

/** What the cache does for one request. */
export type CacheLookup =
  | { readonly kind: 'hit'; readonly reply: CachedReply }
  | { readonly kind: 'miss'; readonly fill: CacheFill }
  | { readonly kind: 'bypass' };

const BYPASS: CacheLookup = Object.freeze({ kind: 'bypass' });

interface Flight {
  readonly waiters: Array<() => void>;
}

/** A request's exact bytes, once looked up: the entry they name, for the model and form they ask. */
interface ExactRequest {
  readonly key: string;
  readonly model: string;
  readonly protocol: string;
  readonly form: CacheForm;
}

/** A hit found by the request's exact bytes, before they are parsed. */
export interface ExactHit {
  readonly reply: CachedReply;
  readonly model: string;
  readonly stream: boolean;
}

/** Requests remembered by their exact bytes, least recently used forgotten first. */
const MAX_EXACT_REQUESTS = 65_536;

export class ResponseCache {
  /** Some model caches by its config: every request to the chat endpoints is looked at. */
  readonly anyModel: boolean;
  readonly config: CacheConfig;
  readonly store: ReplyStore;
  readonly #flights = new Map<string, Flight>();
  readonly #exact = new Map<string, ExactRequest>();

  constructor(config: CacheConfig, models: readonly ModelConfig[], store: ReplyStore = new MemoryReplyStore(config.maxBytes, Math.floor(config.maxBytes * config.maxAccountShare))) {
    this.config = config;
    this.store = store;
    this.anyModel = models.some((model) => model.cache?.enabled === true);
  }

  /**
   * What the cache does for `request` to `model` (the one the client named, resolved and allowed):
   * null when the cache has nothing to do with it (no header, the model does not cache), so the
   * answer carries no x-munja-cache header. A promise while an identical request is in flight.
   * `keyBody`: what the entry is keyed by when not the chat body (another protocol's request as
   * sent); null: a request that must not be answered from the cache nor fill it (`bypass`).
   */
  lookUp(
    directive: CacheDirective, principal: Principal, request: ChatRequest, model: ModelConfig, protocol: string, exact: string | null = null,
    keyBody?: Readonly<Record<string, unknown>> | null,
  ): CacheLookup | Promise<CacheLookup> | null {
    const settings = model.cache ?? null;
    const use = cacheUse(directive, principal.cache ?? null, settings);
    if (use !== 'use') return use === null ? null : BYPASS;
    if (keyBody === null) return BYPASS;
    if ((settings?.deterministicOnly ?? true) && request.temperature !== 0 && request.seed === null) return BYPASS;
    const form: CacheForm = !request.stream ? 'json' : request.includeUsage ? 'stream+usage' : 'stream';
    const key = cacheKey({ accountId: principal.accountId, protocol, model: model.id, body: keyBody ?? request.body as unknown as Record<string, unknown> });
    const ttlMs = (settings?.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS) * 1000;
    if (exact !== null) this.#rememberExact(exact, { key, model: request.model, protocol, form });
    if (directive === 'refresh') return { kind: 'miss', fill: this.#fill(key, ttlMs, principal, request.stream, protocol) };
    const found = this.#get(key, principal.accountId, form, protocol);
    const afterLookUp = (reply: CachedReply | undefined): CacheLookup | Promise<CacheLookup> => {
      if (reply !== undefined) return { kind: 'hit', reply };
      const flight = this.#flights.get(key);
      if (flight === undefined || this.config.singleFlightWaitMs === 0) return { kind: 'miss', fill: this.#fill(key, ttlMs, principal, request.stream, protocol) };
      return this.#afterFlight(flight).then(() => this.#get(key, principal.accountId, form, protocol)).then((filled) => (
        filled === undefined ? { kind: 'miss', fill: this.#fill(key, ttlMs, principal, request.stream, protocol) } : { kind: 'hit', reply: filled }
      ));
    };
    return found instanceof Promise ? found.then(afterLookUp) : afterLookUp(found);
  }

  /**
   * An entry in the form the request asks for; undefined when there is none or it cannot be given
   * in that form. A store that fails to answer (Redis down) is a miss, never the request's failure.
   */
  #get(key: string, accountId: string, form: CacheForm, protocol: string): CachedReply | undefined | Promise<CachedReply | undefined> {
    const found = this.store.get(key, accountId);
    if (!(found instanceof Promise)) return found === undefined ? undefined : inForm(found, form, protocol);
    return found.then((reply) => (reply === undefined ? undefined : inForm(reply, form, protocol)), () => undefined);
  }

  /**
   * The key of a request's exact bytes, as the account sent them with this header and its key's
   * cache setting: the same bytes again are the same request, so a repeat is answered without parsing them.
   */
  exactKey(accountId: string, header: string, keyMode: string, body: Uint8Array | ArrayBuffer): string {
    // The one-shot digest of the body alone, the rest (none of which holds a line break) beside it: half the cost of a hash object.
    return `${accountId}\n${header}\n${keyMode}\n${hash('sha256', body instanceof ArrayBuffer ? new Uint8Array(body) : body, 'base64url')}`;
  }

  /** The reply for bytes seen before, if it is still kept and the key may use its model. */
  exactHit(exact: string, principal: Principal): ExactHit | undefined | Promise<ExactHit | undefined> {
    const known = this.#exact.get(exact);
    if (known === undefined || (principal.models !== null && !principal.models.has(known.model))) return undefined;
    const found = this.#get(known.key, principal.accountId, known.form, known.protocol);
    const hit = (reply: CachedReply | undefined) => (reply === undefined ? undefined : { reply, model: known.model, stream: known.form !== 'json' });
    return found instanceof Promise ? found.then(hit) : hit(found);
  }

  #rememberExact(exact: string, request: ExactRequest): void {
    this.#exact.delete(exact);
    this.#exact.set(exact, request);
    if (this.#exact.size > MAX_EXACT_REQUESTS) this.#exact.delete(this.#exact.keys().next().value!);
  }

  purge(scope: PurgeScope): number | Promise<number> {
    return this.store.purge(scope);
  }

  #fill(key: string, ttlMs: number, principal: Principal, stream: boolean, protocol: string): CacheFill {
    // The first miss of a key leads its flight; a later one (after a wait that timed out) fills too.
    const leads = !this.#flights.has(key);
    if (leads) this.#flights.set(key, { waiters: [] });
    return new CacheFill(this, key, ttlMs, principal, stream ? 'stream' : 'json', protocol, leads);
  }

  /** Stores a whole reply (CacheFill, once it is known whole); a store that fails keeps nothing. */
  keep(key: string, reply: CachedReply, ttlMs: number): void | Promise<void> {
    const stored = this.store.set(key, reply, ttlMs);
    return stored instanceof Promise ? stored.catch(() => undefined) : stored;
  }

  /** The fill that led `key`'s flight ended (stored or not): its waiters look again. */
  land(key: string): void {
    const flight = this.#flights.get(key);
    if (flight === undefined) return;
    this.#flights.delete(key);
    for (const wake of flight.waiters) wake();
  }

  #afterFlight(flight: Flight): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.config.singleFlightWaitMs);
      flight.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/**
 * Whether the cache takes a request, before the determinism rule: `use` it, `bypass` it (the answer
 * says so), or null when it has nothing to do with it (no header, neither the key nor the model
 * turns it on). A key set `off` is barred whatever the header says; a key set `on` turns it on for
 * every model, as the header `on` does for one request; `x-munja-cache: off` still wins over both.
 */
export function cacheUse(directive: CacheDirective, keyMode: KeyCacheMode | null, settings: ModelCacheConfig | null): 'use' | 'bypass' | null {
  const modelOn = settings?.enabled === true;
  if (keyMode === 'off') return modelOn || directive !== '' ? 'bypass' : null;
  if (directive === 'on' || directive === 'refresh' || (directive === '' && (modelOn || keyMode === 'on'))) return 'use';
  return modelOn || keyMode === 'on' || directive !== '' ? 'bypass' : null;
}

/** The header's value; anything else is refused as the client's error. */
export function cacheDirective(header: string): CacheDirective {
  if (header === '' || header === 'on' || header === 'off' || header === 'refresh') return header;
  const value = header.trim().toLowerCase();
  if (value === 'on' || value === 'off' || value === 'refresh') return value;
  throw new ApiError('invalid_value', { message: `The x-munja-cache header must be on, off or refresh, not "${header.slice(0, 64)}".` });
}
