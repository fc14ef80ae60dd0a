// Notices a Redis that lost its data under running instances (restarted without persistence,
// flushed, failed over to an empty replica). The key secret is what gives it away: an instance
// that went on digesting keys with the secret it read at start would refuse every key created
// afterwards with the new one, silently, until it is restarted.
//
// Gone: this instance writes its own secret back (HSETNX, so a racing writer wins consistently);
// keys made meanwhile by the fleet, which shares it, keep working.
// Replaced (another process wrote a new one first): this instance adopts it. That is safe: every
// key record in the store now was digested with the new secret (keys are digested with whatever
// the store holds), the records of keys digested with the old one were lost with the data, and the
// auth cache is cleared so that those lost keys stop working here as they do everywhere else.
// Refusing readiness instead would take the whole fleet out of rotation at once.
import type { Logger } from '../observability/logger.ts';
import { ensureKeySecret, readKeySecret } from '../store/redis-key-secret.ts';
import type { RedisClient } from '../store/redis-connection.ts';

const LOST = 'Redis lost its data: keys, accounts, sessions and usage written since its last save are gone; configure Redis persistence (docs/operations.md)';

export class KeySecretWatch {
  readonly #client: RedisClient;
  readonly #logger: Logger;
  readonly #adopt: (secret: Buffer) => void;
  #secret: Buffer;
  #checking: Promise<void> | null = null;

  /** `adopt` is called with the store's new secret when it replaced the one in use. */
  constructor(options: { client: RedisClient; secret: Buffer; logger: Logger; adopt: (secret: Buffer) => void }) {
    this.#client = options.client;
    this.#secret = Buffer.from(options.secret);
    this.#logger = options.logger;
    this.#adopt = options.adopt;
    // A reconnect is when a restarted Redis shows up: check at once rather than at the next tick.
    this.#client.on('ready', this.#onReady);
  }

  /** Compares the store's secret with the one in use (and acts on a difference); rejects when Redis does not answer. */
  check(): Promise<void> {
    this.#checking ??= this.#compare().finally(() => { this.#checking = null; });
    return this.#checking;
  }

  close(): void {
    this.#client.off('ready', this.#onReady);
  }

  readonly #onReady = (): void => {
    this.check().catch(() => {});
  };

  async #compare(): Promise<void> {
    const stored = await readKeySecret(this.#client);
    if (stored !== null && stored.equals(this.#secret)) return;
    const secret = stored ?? await ensureKeySecret(this.#client, this.#secret);
    if (secret.equals(this.#secret)) {
      this.#logger.warn({ keySecret: 'restored' }, `${LOST}. Its key secret was gone; this instance wrote its own back`);
      return;
    }
    this.#secret = secret;
    this.#adopt(Buffer.from(secret));
    this.#logger.warn({ keySecret: 'adopted' }, `${LOST}. Another process wrote a new key secret, which this instance now uses: keys made before the loss no longer work`);
  }
}
