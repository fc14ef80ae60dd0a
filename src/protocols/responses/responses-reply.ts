// A chat completion (the engine's, or an upstream's) → the Response object of a JSON reply.
import { randomId } from '../../streaming/completion-id.ts';
import { reasoningOf } from '../../streaming/text-shape.ts';
import type { TurnUsage } from '../protocol-endpoint.ts';
import { type OutputItem, type ResponseState, statusOf } from './response-object.ts';

interface ChatChoice {
  readonly message?: {
    readonly reasoning?: string | null;
    readonly reasoning_content?: string | null;
    readonly content?: string | null;
    readonly refusal?: string | null;
    readonly tool_calls?: readonly { readonly id: string; readonly function: { readonly name: string; readonly arguments: string } }[];
  };
  readonly finish_reason?: string | null;
}

/** The state of the Response a chat completion answers with (responseObject() or responseJson() make it whole). */
export function replyState(completion: Record<string, unknown>, usage: TurnUsage): ResponseState {
  const choice = (completion['choices'] as readonly ChatChoice[] | undefined)?.[0];
  const message = choice?.message;
  const output: OutputItem[] = [];
  const reasoning = message === undefined ? null : reasoningOf(message);
  if (reasoning !== null) output.push({ id: randomId('rs_'), type: 'reasoning', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: reasoning }] });
  const text = message?.content ?? message?.refusal ?? null;
  if (text !== null && text !== '') {
    output.push({ id: randomId('msg_'), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] });
  }
  for (const call of message?.tool_calls ?? []) {
    output.push({ id: randomId('fc_'), type: 'function_call', status: 'completed', call_id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  const { status, incompleteReason } = statusOf(choice?.finish_reason ?? null);
  const state = { status, output, usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens } };
  return incompleteReason === undefined ? state : { ...state, incompleteReason };
}
