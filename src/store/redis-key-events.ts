// KeyEvents over Redis pub/sub: every instance (and the CLI) publishes on the store's command
// connection; listening needs a connection of its own, since one in subscriber mode can run no other
// command. ioredis resubscribes after a reconnect; events published meanwhile are lost, so a
// reconnect is announced as `all` (forget every cached key).
import type { RedisConfig } from '../config/config-types.ts';
import { deliver, parseKeyEvent, type KeyEvent, type KeyEventHandler, type KeyEvents } from './key-events.ts';
import { closeRedis, connectRedis, type RedisClient, type RedisClientOptions } from './redis-connection.ts';
import { KEY_EVENTS_CHANNEL } from './redis-keys.ts';

export class RedisKeyEvents implements KeyEvents {
  readonly #publisher: RedisClient;
  readonly #config: RedisConfig;
  readonly #options: RedisClientOptions;
  readonly #handlers = new Set<KeyEventHandler>();
  #subscriber: Promise<RedisClient> | undefined;

  /** `publisher` stays the caller's; the subscriber connection, opened on the first subscribe, is ours. */
  constructor(publisher: RedisClient, config: RedisConfig, options: RedisClientOptions = {}) {
    this.#publisher = publisher;
    this.#config = config;
    this.#options = options;
  }

  async publish(event: KeyEvent): Promise<void> {
    await this.#publisher.publish(KEY_EVENTS_CHANNEL, JSON.stringify(event));
  }

  async subscribe(handler: KeyEventHandler): Promise<() => void> {
    const entry: KeyEventHandler = (event) => handler(event);
    this.#handlers.add(entry);
    try {
      await (this.#subscriber ??= this.#listen());
    } catch (error) {
      this.#handlers.delete(entry);
      this.#subscriber = undefined;
      throw error;
    }
    return () => { this.#handlers.delete(entry); };
  }

  async close(): Promise<void> {
    this.#handlers.clear();
    const subscriber = await this.#subscriber?.catch(() => undefined);
    this.#subscriber = undefined;
    if (subscriber !== undefined) await closeRedis(subscriber);
  }

  async #listen(): Promise<RedisClient> {
    const subscriber = await connectRedis(this.#config, { ...this.#options, name: 'munja-key-events' });
    let lost = false;
    subscriber.on('message', (channel: string, message: string) => {
      const event = channel === KEY_EVENTS_CHANNEL ? parseKeyEvent(message) : undefined;
      if (event !== undefined) deliver([...this.#handlers], event);
    });
    subscriber.on('close', () => { lost = true; });
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      deliver([...this.#handlers], { kind: 'all' });
    });
    try {
      await subscriber.subscribe(KEY_EVENTS_CHANNEL);
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    return subscriber;
  }
}
