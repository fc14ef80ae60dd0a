// A chat.completion (the engine's, or a model server's) as Anthropic's Message.
import type { TurnUsage } from '../protocol-endpoint.ts';
import { reasoningOf } from '../../streaming/text-shape.ts';
import { messageId, stopOf, toolInput, toolUseId, usageJson } from './message-parts.ts';

interface ChatCompletionBody {
  readonly choices?: readonly {
    readonly message?: {
      readonly content?: unknown;
      readonly reasoning?: unknown;
      readonly reasoning_content?: unknown;
      readonly tool_calls?: readonly { readonly id?: string; readonly function?: { readonly name?: string; readonly arguments?: string } }[] | null;
    };
    readonly finish_reason?: unknown;
    readonly stop_reason?: unknown;
  }[];
}

/** `model`: the id the client asked for; `stops`: its stop_sequences; `showsThinking`: a reasoning model's thinking is a thinking block. */
export function messageReply(completion: Record<string, unknown>, model: string, stops: readonly string[], usage: TurnUsage, showsThinking = false): string {
  const choice = (completion as ChatCompletionBody).choices?.[0];
  const message = choice?.message;
  const content: Record<string, unknown>[] = [];
  const thinking = showsThinking && message !== undefined ? reasoningOf(message) : null;
  if (thinking !== null) content.push({ type: 'thinking', thinking, signature: '' });
  if (typeof message?.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content, citations: null });
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: toolUseId(call.id), name: call.function?.name ?? '', input: toolInput(call.function?.arguments), caller: { type: 'direct' } });
  }
  const stop = stopOf(choice?.finish_reason, choice?.stop_reason, stops);
  return `{"id":"${messageId()}","type":"message","role":"assistant","model":${JSON.stringify(model)},"content":${JSON.stringify(content)},`
    + `"stop_reason":"${stop.reason}","stop_sequence":${JSON.stringify(stop.sequence)},"stop_details":null,"container":null,"diagnostics":null,`
    + `"usage":${usageJson(usage.promptTokens, usage.completionTokens)}}`;
}
