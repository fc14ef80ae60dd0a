// chat_completion: the tool arguments become an OpenAI request body, so every rule of
// /v1/chat/completions applies, and it runs through the same completion service (model scope,
// rate limits, dispatch, usage accounting).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/authenticator.ts';
import { admitCompletion } from '../dispatch/admission.ts';
import { type CompletionServiceDeps, runCompletion } from '../dispatch/admitted-completion.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Abortable } from '../http/request-context.ts';
import { validateChatRequest } from '../validation/validate-chat-request.ts';
import { toolResult } from './tool-results.ts';

/** The request-log fields a tool call adds to (the RequestContext of the HTTP request). */
export interface ToolCallLog {
  model: string | null;
  promptTokens: number;
  completionTokens: number;
}

// The request fields passed through as they are: every rule of /v1/chat/completions applies to them.
const PASSED_ON = ['temperature', 'max_tokens', 'seed', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format'] as const;
const ARGUMENTS = new Set<string>(['model', 'prompt', 'messages', ...PASSED_ON]);

export async function chatCompletionTool(
  deps: CompletionServiceDeps,
  principal: Principal,
  args: Readonly<Record<string, unknown>>,
  client: Abortable,
  log: ToolCallLog,
): Promise<CallToolResult> {
  const request = validateChatRequest(toChatBody(args));
  log.model = request.model;
  const admitted = await admitCompletion(deps, principal, request);
  const result = await runCompletion(deps, admitted, client, null);
  log.promptTokens += result.billedPromptTokens;
  log.completionTokens += result.completionTokens;
  // No body: the client left before the reply was ready, so nobody reads this result.
  if (result.body == null) return { isError: true, content: [{ type: 'text', text: 'The request was cancelled.' }] };
  const { text, finishReason, toolCalls } = firstChoice(result.body);
  const usage = {
    prompt_tokens: result.billedPromptTokens,
    completion_tokens: result.completionTokens,
    total_tokens: result.billedPromptTokens + result.completionTokens,
  };
  if (toolCalls === null) return toolResult(text, { text, model: request.model, finish_reason: finishReason, usage });
  // The calls are the reply: as text for a model reading the result, and as data for the caller's loop.
  return toolResult(JSON.stringify({ tool_calls: toolCalls }), { text, model: request.model, finish_reason: finishReason, usage, tool_calls: toolCalls });
}

function toChatBody(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  for (const name of Object.keys(args)) {
    if (!ARGUMENTS.has(name)) {
      throw new ApiError('unknown_parameter', {
        param: name,
        message: `chat_completion has no argument "${name.slice(0, 64)}"; it takes model, prompt or messages, ${PASSED_ON.join(', ')}.`,
      });
    }
  }
  const { model, prompt, messages } = args;
  if (prompt !== undefined && messages !== undefined) {
    throw new ApiError('invalid_value', { param: 'prompt', message: 'Give prompt or messages, not both.' });
  }
  if (prompt === undefined && messages === undefined) {
    throw new ApiError('missing_required_parameter', { param: 'messages', message: 'Give prompt (one user message) or messages (a conversation).' });
  }
  if (prompt !== undefined && typeof prompt !== 'string') throw new ApiError('invalid_type', { param: 'prompt', message: 'prompt must be a string.' });
  const body: Record<string, unknown> = { messages: messages ?? [{ role: 'user', content: prompt }] };
  if (model !== undefined) body['model'] = model;
  for (const name of PASSED_ON) if (args[name] !== undefined) body[name] = args[name];
  return body;
}

/** The reply of an OpenAI chat.completion body (ours, or an upstream's). */
function firstChoice(body: Record<string, unknown>): { text: string; finishReason: string; toolCalls: unknown[] | null } {
  const choice = (body['choices'] as Array<{ message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }> | undefined)?.[0];
  const content = choice?.message?.content;
  const finishReason = choice?.finish_reason;
  const toolCalls = choice?.message?.tool_calls;
  return {
    text: typeof content === 'string' ? content : '',
    finishReason: typeof finishReason === 'string' ? finishReason : 'stop',
    toolCalls: Array.isArray(toolCalls) && toolCalls.length > 0 ? toolCalls : null,
  };
}
