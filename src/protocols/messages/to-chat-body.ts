// A Messages request as the body of the chat completion request it runs as: the conversation
// (chat-conversation.ts), tools and tool_choice, the sampling fields, a JSON output format. What no
// model behind the chat pipeline can honour is refused, naming the field; what changes nothing for
// such a model (thinking, context_management, output_config.effort, cache_control, metadata,
// service_tier) is taken and left out.
import { ApiError } from '../../errors/api-error.ts';
import { chatConversation } from './chat-conversation.ts';
import type { MessagesBody, ToolChoiceParam, ToolParam } from './messages-request.ts';

/** What the model asked for can take, over every model that may serve it (a route's). */
export interface ModelLimits {
  readonly maxOutputTokens: number;
  readonly takesImages: boolean;
  /** Every upstream that may serve it speaks Messages, so the request reaches it as sent, `top_k` included. */
  readonly takesTopK: boolean;
}

/** `limits`: null when no model has the id (admission then answers 404). */
export function toChatBody(body: MessagesBody, limits: ModelLimits | null): Record<string, unknown> {
  if (body.top_k != null && limits?.takesTopK !== true) {
    throw new ApiError('unsupported_parameter', { param: 'top_k', message: 'top_k: not supported by this model; it samples with temperature and top_p (top_k reaches only models whose every upstream speaks the Messages API).' });
  }
  const { messages, referencedTools } = chatConversation(body, limits?.takesImages ?? true);
  const chat: Record<string, unknown> = { model: body.model, messages };
  // Clients written for Anthropic's models ask for more than a smaller model writes (Claude Code's
  // 32,000): the reply is bounded by the model's limit rather than refused.
  if (body.max_tokens !== undefined) chat['max_tokens'] = limits === null ? body.max_tokens : Math.min(body.max_tokens, limits.maxOutputTokens);
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) chat['stop'] = body.stop_sequences;
  if (body.temperature !== undefined) chat['temperature'] = body.temperature;
  if (body.top_p !== undefined) chat['top_p'] = body.top_p;
  if (body.stream === true) {
    chat['stream'] = true;
    // The usage ends the stream's message_delta.
    chat['stream_options'] = { include_usage: true };
  }
  const format = body.output_config?.format;
  if (format != null) chat['response_format'] = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema } };
  addTools(chat, body.tools ?? [], body.tool_choice, referencedTools);
  return chat;
}

/**
 * Tools with `defer_loading` stay out of the offer until a tool_result loads them (tool_reference),
 * as Anthropic keeps them from the model until then; a tool that tool_choice names is offered.
 */
function addTools(chat: Record<string, unknown>, tools: readonly ToolParam[], choice: ToolChoiceParam | undefined, loaded: ReadonlySet<string>): void {
  const forced = choice?.type === 'tool' ? choice.name : null;
  const names = new Set<string>();
  const offered: Record<string, unknown>[] = [];
  for (let index = 0; index < tools.length; index++) {
    const tool = tools[index]!;
    if (names.has(tool.name)) throw invalid(`tools.${index}.name`, 'each tool needs a name of its own.');
    names.add(tool.name);
    if (tool.defer_loading !== true || loaded.has(tool.name) || tool.name === forced) offered.push(functionTool(tool));
  }
  if (forced !== null && !names.has(forced)) throw invalid('tool_choice.name', 'no tool in tools has this name.');
  if (offered.length === 0) {
    if (choice?.type === 'any') throw invalid('tool_choice.type', '"any" needs tools to choose from.');
    return;
  }
  chat['tools'] = offered;
  if (choice === undefined) return;
  chat['tool_choice'] = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type === 'any' ? 'required' : choice.type;
  if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) chat['parallel_tool_calls'] = false;
}

function functionTool(tool: ToolParam): Record<string, unknown> {
  const fn: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) fn['description'] = tool.description;
  fn['parameters'] = tool.input_schema;
  if (tool.strict !== undefined) fn['strict'] = tool.strict;
  return { type: 'function', function: fn };
}

function invalid(param: string, what: string): ApiError {
  return new ApiError('invalid_value', { param, message: `${param}: ${what}` });
}
