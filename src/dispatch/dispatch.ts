// The one place a completion is sent to its target: the local engine or an upstream server.
import type { ModelConfig, UpstreamTimeouts } from '../config/config-types.ts';
import type { EnginePool } from '../engine/engine-pool.ts';
import { ApiError } from '../errors/api-error.ts';
import type { RequestContext } from '../http/request-context.ts';
import { callUpstream } from '../upstream/upstream-exchange.ts';
import type { UpstreamPools } from '../upstream/upstream-pools.ts';
import type { ChatRequest } from '../validation/chat-request.ts';
import { chooseUpstream } from './choose-upstream.ts';
import { deliverLocal } from './local-completion.ts';

export interface DispatchDeps {
  readonly engine: EnginePool;
  readonly pools: UpstreamPools;
  readonly timeouts: UpstreamTimeouts;
}

export interface Completion {
  readonly ctx: RequestContext;
  readonly request: ChatRequest;
  readonly publicModel: string;
  readonly model: ModelConfig;
  /** max_tokens for the engine (the client's, or what the context leaves). */
  readonly maxTokens: number;
  readonly headers: Readonly<Record<string, string>>;
}

export interface CompletionOutcome {
  /** The target's own prompt count when it reported one (upstreams); else ours stands. */
  readonly promptTokens: number | null;
  readonly completionTokens: number;
}

export async function dispatchCompletion(deps: DispatchDeps, completion: Completion): Promise<CompletionOutcome> {
  const { ctx, request, model, publicModel, headers } = completion;
  const target = model.target;
  if (target.kind === 'upstreams') {
    const upstream = chooseUpstream(target);
    return callUpstream({
      ctx,
      dispatcher: deps.pools.get(upstream.origin),
      upstream,
      publicModel,
      body: request.body,
      stream: request.stream,
      includeUsage: request.includeUsage,
      timeouts: deps.timeouts,
      headers,
    });
  }
  if (target.kind !== 'local') throw new ApiError('internal_error');
  if (request.logprobs) throw new ApiError('unsupported_parameter', { param: 'logprobs', message: 'logprobs is not supported by this model.' });
  const result = await deps.engine.generate({
    messages: request.messages,
    language: target.language,
    seed: request.seed,
    temperature: request.temperature ?? 1,
    topP: request.topP ?? 1,
    maxTokens: completion.maxTokens,
    n: request.n,
    stop: request.stop,
  });
  const completionTokens = await deliverLocal({
    ctx,
    model: publicModel,
    stream: request.stream,
    includeUsage: request.includeUsage,
    latency: target.latency,
    result,
    headers,
  });
  return { promptTokens: null, completionTokens };
}
