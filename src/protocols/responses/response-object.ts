// The Response object (as `GET /v1/responses/{id}`, a JSON reply and the stream's lifecycle events
// carry it): the request's settings echoed, the output items, status and usage.
import type { ResponsesBody, ResponsesTool } from './responses-request.ts';

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface OutputText {
  readonly type: 'output_text';
  readonly text: string;
  readonly annotations: readonly unknown[];
  readonly logprobs: readonly unknown[];
}

export interface MessageItem {
  readonly id: string;
  readonly type: 'message';
  readonly role: 'assistant';
  readonly status: 'in_progress' | 'completed' | 'incomplete';
  readonly content: readonly OutputText[];
}

export interface FunctionCallItem {
  readonly id: string;
  readonly type: 'function_call';
  readonly status: 'in_progress' | 'completed' | 'incomplete';
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A reasoning model's thinking, as its text (open models' reasoning_text; no summary is made). */
export interface ReasoningItem {
  readonly id: string;
  readonly type: 'reasoning';
  readonly status: 'in_progress' | 'completed' | 'incomplete';
  readonly summary: readonly never[];
  readonly content: readonly { readonly type: 'reasoning_text'; readonly text: string }[];
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem;

export interface ResponseUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
}

/** What stays the same over a response's life: its id, time, model and the request it answers. */
export interface ResponseFrame {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly body: ResponsesBody;
  readonly store: boolean;
  /** The request's settings as the Response repeats them, as JSON members (no braces). */
  readonly echo: string;
}

export function responseFrame(id: string, createdAt: number, model: string, body: ResponsesBody, store: boolean): ResponseFrame {
  return { id, createdAt, model, body, store, echo: JSON.stringify(echoOf(body)).slice(1, -1) };
}

export interface ResponseState {
  readonly status: ResponseStatus;
  readonly output: readonly OutputItem[];
  readonly usage: ResponseUsage | null;
  /** Why a response is incomplete (`max_output_tokens`, `content_filter`). */
  readonly incompleteReason?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export function responseObject(frame: ResponseFrame, state: ResponseState): Record<string, unknown> {
  return {
    id: frame.id,
    object: 'response',
    created_at: frame.createdAt,
    status: state.status,
    completed_at: completedAt(state),
    error: state.error ?? null,
    incomplete_details: state.incompleteReason === undefined ? null : { reason: state.incompleteReason },
    ...echoOf(frame.body),
    model: frame.model,
    output: state.output,
    store: frame.store,
    usage: state.usage === null ? null : usageObject(state.usage),
  };
}

/**
 * The same Response as responseObject(), as its JSON: the request's echo is serialised once per
 * request (a stream sends the Response three times) and the rest written around it.
 */
export function responseJson(frame: ResponseFrame, state: ResponseState): string {
  return `{"id":"${frame.id}","object":"response","created_at":${frame.createdAt},"status":"${state.status}","completed_at":${completedAt(state)},`
    + `"error":${state.error === undefined ? 'null' : JSON.stringify(state.error)},`
    + `"incomplete_details":${state.incompleteReason === undefined ? 'null' : `{"reason":"${state.incompleteReason}"}`},`
    + `${frame.echo},"model":${JSON.stringify(frame.model)},"output":${JSON.stringify(state.output)},"store":${frame.store},`
    + `"usage":${state.usage === null ? 'null' : JSON.stringify(usageObject(state.usage))}}`;
}

function completedAt(state: ResponseState): number | null {
  return state.status === 'completed' ? Math.floor(Date.now() / 1000) : null;
}

/** The request's settings as a Response repeats them. */
function echoOf(body: ResponsesBody): Record<string, unknown> {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: 'default',
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' }, verbosity: body.text?.verbosity ?? 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).filter((tool) => tool.type === 'function').map(functionTool),
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

function functionTool(tool: ResponsesTool): Record<string, unknown> {
  return { type: 'function', name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict ?? true };
}

export function usageObject(usage: ResponseUsage): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** The status a chat finish reason gives a response, and why it is incomplete. */
export function statusOf(finishReason: string | null): { status: ResponseStatus; incompleteReason?: string } {
  if (finishReason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (finishReason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}
