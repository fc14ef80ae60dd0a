// The simulated engine's KV cache: fixed-size blocks of prompt tokens named by a chain hash (a
// block's hash covers every token before it, as in vLLM's automatic prefix caching), shared between
// the requests that hold them, and kept after their last request ends until the space is needed
// (least recently used first). Only full blocks are cached; a reply's own tokens are held while its
// request runs and never cached.

export const BLOCK_TOKENS = 16;
/** The mock's tokenizer: one token per 4 characters. */
export const CHARS_PER_TOKEN = 4;

/** The chain hashes of the prompt's full blocks (FNV-1a over the block's text, seeded by the previous hash). */
export function blockHashes(prompt: string): number[] {
  const blockChars = BLOCK_TOKENS * CHARS_PER_TOKEN;
  const hashes: number[] = [];
  let hash = 0x811c9dc5;
  for (let start = 0; start + blockChars <= prompt.length; start += blockChars) {
    for (let i = start; i < start + blockChars; i++) hash = Math.imul(hash ^ prompt.charCodeAt(i), 0x01000193) >>> 0;
    hashes.push(hash);
  }
  return hashes;
}

export const tokensOf = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

/** What one request holds in the cache while it runs. */
export interface Holding {
  readonly hashes: readonly number[];
  /** Blocks held beyond the shared ones: the prompt's partial tail block and the reply's blocks. */
  readonly privateBlocks: number;
}

export class PrefixCache {
  readonly capacity: number;
  /** Block hash → requests holding it; a block at 0 is cached and evictable. Map order is LRU order. */
  readonly #blocks = new Map<number, number>();
  #held = 0;
  #privateHeld = 0;

  constructor(capacityBlocks: number) {
    this.capacity = capacityBlocks;
  }

  /** How many of the prompt's leading blocks are cached (or held by a running request). */
  cachedPrefix(hashes: readonly number[]): number {
    let n = 0;
    while (n < hashes.length && this.#blocks.has(hashes[n]!)) n++;
    return n;
  }

  /** Blocks in use by running requests (vLLM's kv_cache_usage_perc counts these, not the evictable cached ones). */
  get usedBlocks(): number {
    return this.#held + this.#privateHeld;
  }

  /** Blocks cached and not held by any request. */
  get cachedIdleBlocks(): number {
    return this.#blocks.size - this.#held;
  }

  /** Whether the request fits once idle cached blocks are evicted. */
  fits(holding: Holding): boolean {
    let fresh = 0;
    let reused = 0;
    for (const hash of holding.hashes) {
      const count = this.#blocks.get(hash);
      if (count === undefined) fresh++;
      else if (count === 0) reused++;
    }
    // Its idle cached blocks become held; fresh ones and private ones need free or evictable space.
    return this.usedBlocks + reused + fresh + holding.privateBlocks <= this.capacity;
  }

  /** Holds the request's blocks (call after fits()), evicting the least recently used idle blocks for room. */
  hold(holding: Holding): void {
    for (const hash of holding.hashes) {
      const count = this.#blocks.get(hash);
      if (count === undefined || count === 0) this.#held++;
      this.#blocks.delete(hash);
      this.#blocks.set(hash, (count ?? 0) + 1);
    }
    this.#privateHeld += holding.privateBlocks;
    this.#evictOver();
  }

  release(holding: Holding): void {
    for (const hash of holding.hashes) {
      const count = this.#blocks.get(hash);
      if (count === undefined) continue;
      if (count === 1) this.#held--;
      this.#blocks.set(hash, count - 1);
    }
    this.#privateHeld -= holding.privateBlocks;
  }

  #evictOver(): void {
    let over = this.#blocks.size + this.#privateHeld - this.capacity;
    if (over <= 0) return;
    for (const [hash, count] of this.#blocks) {
      if (over <= 0) break;
      if (count !== 0) continue;
      this.#blocks.delete(hash);
      over--;
    }
  }
}
