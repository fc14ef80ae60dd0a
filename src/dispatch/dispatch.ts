// The one place a completion is sent to its target: the local engine or an upstream server.
// A stream is written straight to the client's response; a JSON completion is returned, so that
// the HTTP handler and the MCP tools share this path.
import type { Principal } from '../auth/authenticator.ts';
import type { LatencyProfile, ModelConfig } from '../config/config-types.ts';
import type { EnginePool } from '../engine/engine-pool.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Abortable, RequestContext } from '../http/request-context.ts';
import type { StreamTranslator } from '../streaming/stream-translator.ts';
import type { NativeRequest } from '../upstream/native-request.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { localJson, streamLocal } from './local-completion.ts';
import { engineStructure } from './structured-support.ts';
import { sendToUpstreams, type UpstreamDispatchDeps } from './upstream-attempts.ts';

export interface DispatchDeps extends UpstreamDispatchDeps {
  readonly engine: EnginePool;
}

export interface Completion {
  readonly principal: Principal;
  readonly client: Abortable;
  /** Where a stream goes; null for a JSON completion (request.stream must then be false). */
  readonly streamTo: RequestContext | null;
  readonly request: ChatRequest;
  readonly publicModel: string;
  readonly model: ModelConfig;
  /** max_tokens for the engine (the client's, or what the context leaves). */
  readonly maxTokens: number;
  /** The prompt's tokens as estimated on admission (or counted, for the local engine's models). */
  readonly promptTokens: number;
  /** Headers for a streamed response (rate limits, …). */
  readonly headers: Readonly<Record<string, string>>;
  /** A relayed JSON completion may come back as bytes ready to send (`bytes`) rather than parsed. */
  readonly asBytes: boolean;
  /**
   * The client's request of another API (Responses, Messages), relayed as it is to an upstream that
   * speaks that API; `request` (its chat translation) goes to the others. Null for a chat request.
   */
  readonly native: NativeRequest | null;
  /** A stream of another protocol: what translates the chat events into its own; null for chat. */
  readonly translator: StreamTranslator | null;
}

export interface CompletionOutcome {
  /** The target's own prompt count when it reported one (upstreams); else ours stands. */
  readonly promptTokens: number | null;
  readonly completionTokens: number;
  /**
   * Of the prompt tokens, those the target read from its cache (priced at the model's cachedInput),
   * when it reported them (a JSON completion's only when the model's price tells them apart).
   */
  readonly cachedPromptTokens?: number;
  /** The JSON completion, when not streamed and not `bytes`; absent or null if the client left first. */
  readonly body?: Record<string, unknown> | null;
  /** The JSON completion as bytes ready to send, when asked for and possible. */
  readonly bytes?: Uint8Array | null;
  /** The JSON answer of an upstream that spoke the request's native API, in that API's shape (no chat completion then). */
  readonly nativeBody?: Uint8Array | null;
  /** Headers from the target worth passing on with the JSON completion. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Told once how a dispatched completion ended. */
export interface OutcomeListener {
  succeeded(outcome: CompletionOutcome): void;
  failed(error: unknown): void;
  /** It left the admission queue unsent (refused, or its client left): nothing reached a target. */
  withdrawn(error: unknown): void;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** `listener` hears the end; an upstream's outcome reaches it as it is (it has the outcome's shape). */
export function dispatchCompletion(deps: DispatchDeps, completion: Completion, listener: OutcomeListener): void {
  const target = completion.model.target;
  if (target.kind === 'upstreams') return sendToUpstreams(deps, completion, target, listener);
  dispatchLocal(deps, completion).then((outcome) => listener.succeeded(outcome), (error: unknown) => listener.failed(error));
}

async function dispatchLocal(deps: DispatchDeps, completion: Completion): Promise<CompletionOutcome> {
  const { request, model } = completion;
  const target = model.target;
  if (target.kind !== 'local') throw new ApiError('internal_error');
  if (request.logprobs) throw new ApiError('unsupported_parameter', { param: 'logprobs', message: 'logprobs is not supported by this model.' });
  deps.inFlight.begin(model);
  try {
    return await runLocal(deps, completion, target.language, target.latency);
  } finally {
    deps.inFlight.end(model);
  }
}

async function runLocal(deps: DispatchDeps, completion: Completion, language: 'en' | 'hr', latency: LatencyProfile): Promise<CompletionOutcome> {
  const { client, streamTo, request, publicModel, headers } = completion;
  const structure = request.structured === null ? undefined : engineStructure(request.structured);
  // The client leaving ends its engine task too (a task with costly schemas could run on for seconds),
  // and one that left while its prompt was counted gets none.
  if (client.aborted) throw new ApiError('client_closed');
  const leaving = new AbortController();
  client.onAbort = () => leaving.abort(new ApiError('client_closed'));
  const generating = deps.engine.generate({
    messages: request.messages,
    language,
    seed: request.seed,
    temperature: request.temperature ?? 1,
    topP: request.topP ?? 1,
    maxTokens: completion.maxTokens,
    n: request.n,
    stop: request.stop,
    structure,
  }, leaving.signal, completion.principal.accountId);
  let result;
  try {
    result = await generating;
  } finally {
    client.onAbort = null;
  }
  if (result.refusal !== undefined) throw new ApiError(result.refusal.code, { param: result.refusal.param, message: result.refusal.message });
  if (client.trace?.recording) client.trace.addFinishReasons(result.choices.map((choice) => choice.finishReason));
  if (streamTo !== null) {
    const completionTokens = await streamLocal({ ctx: streamTo, translator: completion.translator, model: publicModel, includeUsage: request.includeUsage, latency, result, structured: structure !== undefined, headers });
    return { promptTokens: null, completionTokens, body: null, headers: NO_HEADERS };
  }
  const json = await localJson(client, publicModel, latency, result);
  return { promptTokens: null, completionTokens: json.completionTokens, body: json.body, headers: NO_HEADERS };
}
