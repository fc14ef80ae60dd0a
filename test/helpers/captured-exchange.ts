// startExchange in unit tests: the call's dispatcher keeps the handler it is given instead of
// sending anything, so that a test plays the upstream's part through the handler itself.
import type { Dispatcher } from 'undici';
import type { UpstreamConfig } from '../../src/config/config-types.ts';
import type { Abortable, RequestContext } from '../../src/http/request-context.ts';
import type { NativeRequest } from '../../src/upstream/native-request.ts';
import type { UpstreamAttemptError } from '../../src/upstream/upstream-errors.ts';
import { startExchange, type UpstreamOutcome } from '../../src/upstream/upstream-exchange.ts';
import type { ChatRequestBody } from '../../src/validation/chat-request.ts';

/** Serves `up/model`; nothing listens at its address. */
const TEST_UPSTREAM: UpstreamConfig = {
  baseUrl: 'http://127.0.0.1:9/v1', origin: 'http://127.0.0.1:9', chatPath: '/v1/chat/completions', responsesPath: '/v1/responses', messagesPath: '/v1/messages', api: ['chat'],
  model: 'up/model', apiKey: null, weight: 1, maxConnections: 1,
};

export interface CapturedExchange {
  /** The exchange's undici handler. */
  readonly handler: Dispatcher.DispatchHandler;
  /** Settles with the exchange's outcome, or rejects with its failure. */
  readonly ended: Promise<UpstreamOutcome>;
}

/**
 * An exchange of `model` ("fast") relayed from TEST_UPSTREAM to `client` (and to `streamTo` for a
 * stream); `native`: the client's request of another API, relayed as it is; `onStreamStarted`: the
 * listener's, told of a stream's first bytes.
 */
export function capturedExchange(
  client: Abortable, streamTo: RequestContext | null, asBytes: boolean, native: NativeRequest | null = null, cachedInputPriced = false, onStreamStarted: () => void = () => {},
): CapturedExchange {
  let handler: Dispatcher.DispatchHandler | undefined;
  const ended = new Promise<UpstreamOutcome>((resolve, reject: (error: UpstreamAttemptError) => void) => startExchange({
    client,
    streamTo,
    translator: null,
    dispatcher: { dispatch: (_options: unknown, given: Dispatcher.DispatchHandler) => { handler = given; return true; } } as unknown as Dispatcher,
    upstream: TEST_UPSTREAM,
    publicModel: 'fast',
    body: { model: 'fast', messages: [] } as unknown as ChatRequestBody,
    source: null,
    includeUsage: false,
    native,
    timeouts: { connectTimeoutMs: 1_000, firstByteTimeoutMs: 1_000, responseTimeoutMs: 1_000, idleTimeoutMs: 1_000, maxEventBytes: 1024 * 1024 },
    headers: {},
    asBytes,
    cachedInputPriced,
  }, { streamStarted: onStreamStarted, succeeded: resolve, failed: reject }));
  if (handler === undefined) throw new Error('startExchange did not dispatch');
  return { handler, ended };
}
