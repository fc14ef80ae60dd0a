// Every /mcp message counts against the key's request rate, as every /v1 request does: otherwise
// a key with its quota spent could go on making the server list tools and answer pings without
// end. A chat_completion call is counted when the completion is admitted (dispatch/admission.ts),
// so it is not counted twice. Batches are capped: one POST cannot carry unbounded work.
import type { Principal } from '../auth/authenticator.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Limiter } from '../ratelimit/limiter.ts';
import { rateLimitError } from '../ratelimit/rate-limit-headers.ts';
import { CHAT_COMPLETION } from './tool-definitions.ts';

export const MAX_BATCH_MESSAGES = 16;

/** Counts the messages of one POST /mcp body; throws 400 `batch_too_large` or 429 `rate_limit_exceeded`. */
export async function countMcpMessages(limiter: Limiter, principal: Principal, body: unknown): Promise<void> {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length > MAX_BATCH_MESSAGES) {
    throw new ApiError('batch_too_large', { message: `A JSON-RPC batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${messages.length}.` });
  }
  let counted = messages.filter((message) => !isChatCompletionCall(message)).length;
  // The request itself counts even when it holds nothing else to count (an empty batch).
  if (messages.length === 0) counted = 1;
  // One at a time: each holds a concurrency slot only for the moment it is counted.
  for (let index = 0; index < counted; index++) {
    const decision = await limiter.acquire(principal, 0);
    if (!decision.allowed || decision.lease === null) throw rateLimitError(decision, 0);
    void limiter.settle(decision.lease, 0);
  }
}

function isChatCompletionCall(message: unknown): boolean {
  if (message === null || typeof message !== 'object') return false;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } | null };
  return method === 'tools/call' && typeof params === 'object' && params !== null && params.name === CHAT_COMPLETION;
}
