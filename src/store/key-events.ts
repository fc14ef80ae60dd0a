// Changes that auth caches must hear about at once: a key revoked, an account suspended or resumed.
// With Redis they reach every instance by pub/sub (redis-key-events.ts); the embedded store uses
// the in-process bus below. Losing an event is bounded by the auth cache TTL (10 s at most).

export type KeyEvent =
  | { readonly kind: 'key'; readonly keyId: string }
  | { readonly kind: 'account'; readonly accountId: string }
  /** Events may have been missed (the subscription was down): forget everything. */
  | { readonly kind: 'all' };

export type KeyEventHandler = (event: KeyEvent) => void;

export interface KeyEvents {
  publish(event: KeyEvent): Promise<void>;
  /** Resolves once listening; the returned function stops this handler. */
  subscribe(handler: KeyEventHandler): Promise<() => void>;
  close(): Promise<void>;
}

/** Calls each handler, so that one that throws cannot stop the others (or the connection reading). */
export function deliver(handlers: Iterable<KeyEventHandler>, event: KeyEvent): void {
  for (const handler of handlers) {
    try {
      handler(event);
    } catch {
      // A handler's failure is its own; the cache TTL still bounds staleness.
    }
  }
}

/** A wire message → a KeyEvent, or undefined for anything malformed. */
export function parseKeyEvent(message: string): KeyEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (event['kind'] === 'key' && typeof event['keyId'] === 'string') return { kind: 'key', keyId: event['keyId'] };
  if (event['kind'] === 'account' && typeof event['accountId'] === 'string') return { kind: 'account', accountId: event['accountId'] };
  if (event['kind'] === 'all') return { kind: 'all' };
  return undefined;
}

/** The embedded store's bus: one process, so events never leave it. */
export class LocalKeyEvents implements KeyEvents {
  readonly #handlers = new Set<KeyEventHandler>();

  async publish(event: KeyEvent): Promise<void> {
    deliver([...this.#handlers], event);
  }

  async subscribe(handler: KeyEventHandler): Promise<() => void> {
    const entry: KeyEventHandler = (event) => handler(event);
    this.#handlers.add(entry);
    return () => { this.#handlers.delete(entry); };
  }

  async close(): Promise<void> {
    this.#handlers.clear();
  }
}
