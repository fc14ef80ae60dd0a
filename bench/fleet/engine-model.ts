// The scheduler of a simulated vLLM-like engine, stepped by its caller (the server runs steps on a
// timer; the tests step it by hand). What it models:
// - continuous batching: at most `maxBatch` requests run; the rest wait in a FIFO queue, admitted at
//   the start of a step while the batch has room and the KV cache can hold the request (head of line
//   first: a request that does not fit holds back the ones behind it);
// - chunked prefill, as vLLM V1 schedules by default: each step has a budget of `maxBatchedTokens`
//   tokens (vLLM's max_num_batched_tokens; 2048 is its API server's default on GPUs under 70 GiB);
//   the running requests come first, each decoding one token, then those still prefilling get
//   chunks of their prompt in turn, then waiting requests are admitted into what is left, a first
//   chunk each; a long prompt so takes several steps to prefill, and the batch keeps decoding;
// - a step's time grows with the batch: `stepBaseMs + stepPerSequenceMs × running`, plus
//   `prefillMsPerToken` for every prompt token prefilled in it (only those not found in the prefix
//   cache are); every running request whose prompt is prefilled gets one token per step, its first
//   at the end of the step that finished its prefill;
// - the prefix cache (prefix-cache.ts): a prompt's leading blocks already cached are not prefilled;
//   4,800 blocks of 16 tokens (76,800 tokens) stand for a mid-size model's KV cache on one GPU.
// What it does not model: preemption and recomputation (a request reserves KV blocks for its whole
// reply when admitted), priority scheduling (vLLM's --scheduling-policy priority), speculative
// decoding, the tokenizer (4 characters make a token), stop sequences (every reply runs to
// max_tokens), memory bandwidth effects beyond the linear step cost, and the GPU itself: time is
// wall-clock time scaled down about 3× from a mid-size model's on one GPU, so a run takes seconds
// rather than minutes.
import { BLOCK_TOKENS, blockHashes, type Holding, PrefixCache, tokensOf } from './prefix-cache.ts';

export interface EngineParams {
  readonly maxBatch: number;
  readonly stepBaseMs: number;
  readonly stepPerSequenceMs: number;
  readonly prefillMsPerToken: number;
  readonly kvBlocks: number;
  /** Tokens scheduled per step, decodes and prefill chunks (vLLM's max_num_batched_tokens). */
  readonly maxBatchedTokens: number;
}

export const VLLM_LIKE: EngineParams = { maxBatch: 8, stepBaseMs: 8, stepPerSequenceMs: 1, prefillMsPerToken: 0.04, kvBlocks: 4800, maxBatchedTokens: 2048 };

export interface TokenSink {
  /** One more reply token (index from 0) at the end of the step that made it. */
  token(index: number): void;
  /** The reply reached its max_tokens. */
  done(promptTokens: number, cachedTokens: number): void;
}

export interface SimRequest {
  readonly promptTokens: number;
  readonly maxTokens: number;
  readonly holding: Holding;
  readonly hashes: readonly number[];
  readonly sink: TokenSink;
  cachedTokens: number;
  produced: number;
  /** Prompt tokens still to prefill; 0 once prefilled. */
  prefilling: number;
  /** Tokens scheduled in the current step: a prefill chunk, 1 for a decode, 0 for none. */
  scheduled: number;
}

export class EngineModel {
  readonly params: EngineParams;
  readonly #cache: PrefixCache;
  readonly #waiting: SimRequest[] = [];
  readonly #running: SimRequest[] = [];
  prefilledTokens = 0;
  cachedPromptTokens = 0;

  constructor(params: EngineParams = VLLM_LIKE) {
    this.params = params;
    this.#cache = new PrefixCache(params.kvBlocks);
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  get running(): number {
    return this.#running.length;
  }

  /** vLLM's kv_cache_usage_perc: the share of blocks held by running requests (cached idle blocks are free to evict). */
  get kvCacheUsage(): number {
    return this.#cache.usedBlocks / this.#cache.capacity;
  }

  /** Queues a request; throws when it could never fit in the KV cache. */
  submit(prompt: string, maxTokens: number, sink: TokenSink): SimRequest {
    const hashes = blockHashes(prompt);
    const promptTokens = tokensOf(prompt);
    const privateBlocks = Math.ceil((promptTokens - hashes.length * BLOCK_TOKENS + maxTokens) / BLOCK_TOKENS);
    if (hashes.length + privateBlocks > this.#cache.capacity) throw new RangeError(`the prompt and reply need ${hashes.length + privateBlocks} KV blocks; the engine has ${this.#cache.capacity}`);
    const request: SimRequest = { promptTokens, maxTokens, hashes, holding: { hashes, privateBlocks }, sink, cachedTokens: 0, produced: 0, prefilling: 0, scheduled: 0 };
    this.#waiting.push(request);
    return request;
  }

  /** The client left: the request leaves the queue or the batch. */
  cancel(request: SimRequest): void {
    const queued = this.#waiting.indexOf(request);
    if (queued !== -1) {
      this.#waiting.splice(queued, 1);
      return;
    }
    const running = this.#running.indexOf(request);
    if (running === -1) return;
    this.#running.splice(running, 1);
    this.#cache.release(request.holding);
  }

  /** Starts a step: schedules decodes, prefill chunks and new requests within the token budget; its duration in ms, or null when there is nothing to run. */
  beginStep(): number | null {
    const { maxBatch, stepBaseMs, stepPerSequenceMs, prefillMsPerToken, maxBatchedTokens } = this.params;
    let budget = maxBatchedTokens;
    let prefill = 0;
    for (const request of this.#running) {
      request.scheduled = request.prefilling === 0 && budget > 0 ? 1 : 0;
      budget -= request.scheduled;
    }
    for (const request of this.#running) {
      if (request.prefilling === 0) continue;
      request.scheduled = Math.min(request.prefilling, budget);
      budget -= request.scheduled;
      prefill += request.scheduled;
    }
    while (budget > 0 && this.#running.length < maxBatch && this.#waiting.length > 0 && this.#cache.fits(this.#waiting[0]!.holding)) {
      const request = this.#waiting.shift()!;
      const cachedBlocks = this.#cache.cachedPrefix(request.hashes);
      this.#cache.hold(request.holding);
      request.cachedTokens = Math.min(cachedBlocks * BLOCK_TOKENS, request.promptTokens - 1);
      request.prefilling = request.promptTokens - request.cachedTokens;
      request.scheduled = Math.min(request.prefilling, budget);
      budget -= request.scheduled;
      prefill += request.scheduled;
      this.prefilledTokens += request.prefilling;
      this.cachedPromptTokens += request.cachedTokens;
      this.#running.push(request);
    }
    if (this.#running.length === 0) return null;
    return stepBaseMs + stepPerSequenceMs * this.#running.length + prefillMsPerToken * prefill;
  }

  /** Ends the step: every request scheduled in it whose prompt is now prefilled gets its next token; those at max_tokens finish. */
  endStep(): void {
    const running = this.#running;
    let kept = 0;
    for (const request of running) {
      request.prefilling -= request.prefilling === 0 ? 0 : request.scheduled;
      // Not scheduled this step (the budget ran out), or its prompt not yet prefilled: no token yet.
      if (request.scheduled === 0 || request.prefilling > 0) {
        running[kept++] = request;
        continue;
      }
      request.sink.token(request.produced++);
      if (request.produced < request.maxTokens) running[kept++] = request;
      else {
        this.#cache.release(request.holding);
        request.sink.done(request.promptTokens, request.cachedTokens);
      }
    }
    running.length = kept;
  }
}
