// A Responses API request → the chat request it runs as. Input items become chat messages
// (text parts joined: a chat message's content is a string), function tools become chat tools,
// `text.format` the response format; built-in tools this service cannot provide are taken out of
// the offer and named, and a field that would change the output but cannot be honoured is a 400.
import { Ajv } from 'ajv';
import { ApiError } from '../../errors/api-error.ts';
import { mapAjvError } from '../../validation/map-ajv-error.ts';
import { RESPONSES_REQUEST_SCHEMA } from './responses-request-schema.ts';

const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true, verbose: true });
const validateBody = ajv.compile<ResponsesBody>(RESPONSES_REQUEST_SCHEMA);

export interface ResponsesPart {
  readonly type: string;
  readonly text?: string;
  readonly refusal?: string;
}

export interface ResponsesInputItem {
  readonly type?: string;
  readonly role?: string;
  readonly content?: string | readonly ResponsesPart[];
  readonly id?: string;
  readonly status?: string;
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly output?: string | readonly ResponsesPart[];
}

export interface ResponsesTool {
  readonly type: string;
  readonly name?: string;
  readonly description?: string | null;
  readonly parameters?: Readonly<Record<string, unknown>> | null;
  readonly strict?: boolean | null;
}

export interface ResponsesTextFormat {
  readonly type: 'text' | 'json_object' | 'json_schema';
  readonly name?: string;
  readonly schema?: Readonly<Record<string, unknown>>;
  readonly description?: string;
  readonly strict?: boolean | null;
}

export type ResponsesToolChoice = 'none' | 'auto' | 'required' | { readonly type: string; readonly name?: string };

export interface ResponsesBody {
  readonly model: string;
  readonly input: string | readonly ResponsesInputItem[];
  readonly instructions?: string | null;
  readonly tools?: readonly ResponsesTool[];
  readonly tool_choice?: ResponsesToolChoice;
  readonly parallel_tool_calls?: boolean | null;
  readonly text?: { readonly format?: ResponsesTextFormat; readonly verbosity?: 'low' | 'medium' | 'high' | null } | null;
  readonly max_output_tokens?: number | null;
  readonly temperature?: number | null;
  readonly top_p?: number | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
  readonly store?: boolean | null;
  readonly previous_response_id?: string | null;
  readonly stream?: boolean | null;
  readonly user?: string;
  readonly safety_identifier?: string | null;
  readonly prompt_cache_key?: string | null;
  readonly include?: readonly string[] | null;
  readonly reasoning?: { readonly effort?: string | null; readonly summary?: string | null } | null;
  readonly service_tier?: string | null;
  readonly truncation?: 'auto' | 'disabled' | null;
  readonly background?: boolean | null;
  readonly max_tool_calls?: number | null;
  readonly top_logprobs?: number | null;
  readonly conversation?: unknown;
  readonly prompt?: unknown;
}

/** A chat message as this translation makes it (the chat validator checks it again). */
export interface TranslatedMessage {
  readonly role: string;
  readonly content: string | null;
  readonly tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  readonly tool_call_id?: string;
}

export interface TranslatedRequest {
  readonly body: ResponsesBody;
  /** The chat request body, `messages` after `history`. */
  readonly chatBody: Record<string, unknown>;
  /** This request's input as chat messages (without instructions or history): what a stored response keeps. */
  readonly messages: readonly TranslatedMessage[];
  /** Tools taken out of the offer, by type (and name where they have one). */
  readonly omittedTools: readonly string[];
  /** For each chat tool, its index in the request's `tools`. */
  readonly toolIndexes: readonly number[];
}

// What `include` may ask for here: outputs of tools this service never runs, and encrypted
// reasoning of a model that has none. Log probabilities would change the output: refused.
const HARMLESS_INCLUDES = new Set([
  'reasoning.encrypted_content',
  'web_search_call.action.sources',
  'web_search_call.results',
  'file_search_call.results',
  'code_interpreter_call.outputs',
  'computer_call_output.output.image_url',
  'message.input_image.image_url',
]);

const TEXT_PART_TYPES = new Set(['input_text', 'output_text', 'text']);

export function parseResponsesBody(value: unknown): ResponsesBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ApiError('invalid_body');
  if (!validateBody(value)) {
    const error = validateBody.errors?.[0];
    throw error === undefined ? new ApiError('invalid_body') : mapAjvError(error, value);
  }
  refuseUnhonoured(value);
  return value;
}

/** `history`: the chat messages of the conversation this request continues (previous_response_id). */
export function translateResponsesRequest(body: ResponsesBody, history: readonly TranslatedMessage[]): TranslatedRequest {
  const messages = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : inputMessages(body.input);
  const chat: Record<string, unknown> = { model: body.model };
  const all: TranslatedMessage[] = [];
  if (body.instructions != null && body.instructions !== '') all.push({ role: 'system', content: body.instructions });
  all.push(...history, ...messages);
  chat['messages'] = all;
  const { tools, omitted, indexes } = chatTools(body.tools ?? []);
  if (tools.length > 0) chat['tools'] = tools;
  const toolChoice = body.tool_choice === undefined ? undefined : chatToolChoice(body.tool_choice, tools, omitted);
  if (toolChoice !== undefined) chat['tool_choice'] = toolChoice;
  if (body.parallel_tool_calls != null && tools.length > 0) chat['parallel_tool_calls'] = body.parallel_tool_calls;
  const format = body.text?.format;
  if (format !== undefined && format.type !== 'text') chat['response_format'] = chatResponseFormat(format);
  if (body.text?.verbosity != null) chat['verbosity'] = body.text.verbosity;
  if (body.max_output_tokens != null) chat['max_completion_tokens'] = body.max_output_tokens;
  if (body.temperature != null) chat['temperature'] = body.temperature;
  if (body.top_p != null) chat['top_p'] = body.top_p;
  if (body.user !== undefined) chat['user'] = body.user;
  if (body.safety_identifier != null) chat['safety_identifier'] = body.safety_identifier;
  if (body.prompt_cache_key != null) chat['prompt_cache_key'] = body.prompt_cache_key;
  if (body.reasoning?.effort != null) chat['reasoning_effort'] = body.reasoning.effort;
  if (body.stream === true) {
    chat['stream'] = true;
    chat['stream_options'] = { include_usage: true };
  }
  return { body, chatBody: chat, messages, omittedTools: omitted, toolIndexes: indexes };
}

function refuseUnhonoured(body: ResponsesBody): void {
  if (body.background === true) throw unsupported('background', 'background responses are not supported; send the request and keep the connection (stream: true for long ones).');
  if (body.conversation != null) throw unsupported('conversation', 'conversation objects are not supported; continue a conversation with previous_response_id.');
  if (body.prompt != null) throw unsupported('prompt', 'stored prompt templates are not supported; send the instructions and input.');
  if (body.top_logprobs != null && body.top_logprobs > 0) throw unsupported('top_logprobs', 'log probabilities are not supported on this endpoint.');
  if (body.truncation === 'auto') throw unsupported('truncation', 'truncation "auto" is not supported: a conversation over the context is refused, never cut. Send "disabled" or leave it out.');
  body.include?.forEach((name, index) => {
    if (!HARMLESS_INCLUDES.has(name)) throw unsupported(`include[${index}]`, `include "${name.slice(0, 64)}" is not supported on this endpoint.`);
  });
  if (typeof body.input === 'string' && body.input === '') throw new ApiError('invalid_value', { param: 'input', message: 'input must not be empty.' });
}

function unsupported(param: string, message: string): ApiError {
  return new ApiError('unsupported_parameter', { param, message });
}

function inputMessages(items: readonly ResponsesInputItem[]): TranslatedMessage[] {
  const messages: TranslatedMessage[] = [];
  items.forEach((item, index) => {
    const type = item.type ?? 'message';
    const param = `input[${index}]`;
    switch (type) {
      case 'message':
        return messages.push(messageOf(item, param));
      case 'function_call':
        return addToolCall(messages, item, param);
      case 'function_call_output':
        if (item.call_id === undefined) throw missing(`${param}.call_id`);
        if (item.output === undefined) throw missing(`${param}.output`);
        return messages.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output, `${param}.output`) });
      case 'reasoning':
        return; // a model's reasoning from an earlier turn: nothing a chat target reads
      default:
        throw unsupported(`${param}.type`, `input items of type "${type.slice(0, 64)}" are not supported; send messages, function_call and function_call_output items.`);
    }
  });
  return messages;
}

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function messageOf(item: ResponsesInputItem, param: string): TranslatedMessage {
  if (item.role === undefined) throw missing(`${param}.role`);
  if (!ROLES.has(item.role)) throw new ApiError('invalid_value', { param: `${param}.role`, message: `${param}.role must be one of user, assistant, system, developer.` });
  if (item.content === undefined) throw missing(`${param}.content`);
  return { role: item.role, content: textOf(item.content, `${param}.content`) };
}

/** A function_call item: a tool call of the assistant turn it follows, or one of its own. */
function addToolCall(messages: TranslatedMessage[], item: ResponsesInputItem, param: string): void {
  if (item.call_id === undefined) throw missing(`${param}.call_id`);
  if (item.name === undefined) throw missing(`${param}.name`);
  if (item.arguments === undefined) throw missing(`${param}.arguments`);
  const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function textOf(content: string | readonly ResponsesPart[], param: string): string {
  if (typeof content === 'string') return content;
  let text = '';
  content.forEach((part, index) => {
    if (TEXT_PART_TYPES.has(part.type) && typeof part.text === 'string') text += part.text;
    else if (part.type === 'refusal' && typeof part.refusal === 'string') text += part.refusal;
    else throw unsupported(`${param}[${index}]`, `content parts of type "${part.type.slice(0, 64)}" are not supported: the models here read text.`);
  });
  return text;
}

function missing(param: string): ApiError {
  return new ApiError('missing_required_parameter', { param, message: `${param} is required.` });
}

function chatTools(tools: readonly ResponsesTool[]): { tools: Record<string, unknown>[]; omitted: string[]; indexes: number[] } {
  const chat: Record<string, unknown>[] = [];
  const omitted: string[] = [];
  const indexes: number[] = [];
  tools.forEach((tool, index) => {
    if (tool.type !== 'function') {
      omitted.push(tool.name === undefined ? tool.type : `${tool.type}:${tool.name}`);
      return;
    }
    if (tool.name === undefined) throw missing(`tools[${index}].name`);
    const fn: Record<string, unknown> = { name: tool.name };
    if (tool.description != null) fn['description'] = tool.description;
    if (tool.parameters != null) fn['parameters'] = tool.parameters;
    if (tool.strict != null) fn['strict'] = tool.strict;
    chat.push({ type: 'function', function: fn });
    indexes.push(index);
  });
  return { tools: chat, omitted, indexes };
}

function chatToolChoice(choice: ResponsesToolChoice, tools: readonly Record<string, unknown>[], omitted: readonly string[]): unknown {
  if (typeof choice === 'string') {
    if (tools.length > 0) return choice;
    // Only tools this service cannot provide were offered: nothing to choose from.
    if (choice === 'required' && omitted.length > 0) throw unsupported('tool_choice', `tool_choice "required" forces a tool, and the only tools offered (${omitted.join(', ').slice(0, 200)}) are ones this service cannot provide.`);
    return undefined;
  }
  if (choice.type === 'function') {
    if (choice.name === undefined) throw missing('tool_choice.name');
    if (!tools.some((tool) => (tool['function'] as { name: string }).name === choice.name)) {
      throw new ApiError('invalid_value', { param: 'tool_choice.name', message: `tool_choice names "${choice.name.slice(0, 64)}", which is not among the function tools.` });
    }
    return { type: 'function', function: { name: choice.name } };
  }
  const forced = omitted.some((name) => name === choice.type || name.startsWith(`${choice.type}:`));
  throw unsupported('tool_choice', forced
    ? `tool_choice forces the tool "${choice.type.slice(0, 64)}", which this service cannot provide.`
    : `tool_choice of type "${choice.type.slice(0, 64)}" is not supported; use none, auto, required or a function.`);
}

function chatResponseFormat(format: ResponsesTextFormat): Record<string, unknown> {
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.name === undefined) throw missing('text.format.name');
  if (format.schema === undefined) throw missing('text.format.schema');
  const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.description !== undefined) schema['description'] = format.description;
  if (format.strict != null) schema['strict'] = format.strict;
  return { type: 'json_schema', json_schema: schema };
}
