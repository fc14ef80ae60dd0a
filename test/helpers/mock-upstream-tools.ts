// The mock upstream as a tool-calling model server (vLLM with a tool parser): a tool call while the
// request has tools and the conversation does not end with tool results, JSON content for a
// response_format, as a completion or as vLLM's tool-call stream. Values come from the schemas.
import { createRandom } from '../../src/engine/prng.ts';
import { valueFor } from '../../src/engine/schema-values.ts';
import type { Channel } from './mock-upstream-behaviors.ts';
import { completionId, DONE_FRAME, sseFrame, usageOf } from './mock-upstream-vllm.ts';

interface ToolsBody {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly stream_options?: { readonly include_usage?: unknown };
  readonly messages?: unknown;
  readonly tools?: readonly { readonly function: { readonly name: string; readonly parameters?: Record<string, unknown> } }[];
  readonly tool_choice?: unknown;
  readonly response_format?: { readonly type: string; readonly json_schema?: { readonly schema?: Record<string, unknown> } };
}

const WORDS = ['alpha', 'bravo', 'charlie', 'delta'];
const PROMPT_TOKENS = 10;

/** Whether this request gets a tool call or JSON content from the mock (else its usual text). */
export function wantsStructuredReply(body: unknown): boolean {
  const chat = body as ToolsBody;
  return toolToCall(chat) !== null || (chat.response_format !== undefined && chat.response_format.type !== 'text');
}

function toolToCall(body: ToolsBody): { name: string; parameters: Record<string, unknown> } | null {
  const tools = body.tools ?? [];
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown }[]) : [];
  if (tools.length === 0 || body.tool_choice === 'none' || messages.at(-1)?.role === 'tool') return null;
  const named = (body.tool_choice as { function?: { name?: string } } | undefined)?.function?.name;
  const tool = tools.find((candidate) => named === undefined || candidate.function.name === named) ?? tools[0]!;
  return { name: tool.function.name, parameters: tool.function.parameters ?? { type: 'object' } };
}

export async function runStructuredReply(body: unknown, channel: Channel, headers: Record<string, string>): Promise<void> {
  const chat = body as ToolsBody;
  const model = typeof chat.model === 'string' ? chat.model : 'unknown';
  const random = createRandom(7);
  const tool = toolToCall(chat);
  const schema = chat.response_format?.json_schema?.schema ?? { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
  const call = tool === null ? null : { id: `chatcmpl-tool-${completionId().slice(9, 25)}`, name: tool.name, arguments: JSON.stringify(valueFor(tool.parameters, { random, words: WORDS })) };
  const content = call === null ? JSON.stringify(valueFor(schema, { random, words: WORDS })) : null;
  const usage = usageOf(PROMPT_TOKENS, Math.ceil((call?.arguments ?? content ?? '').length / 4));
  const finishReason = call === null ? 'stop' : 'tool_calls';
  const toolCalls = call === null ? [] : [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }];
  if (chat.stream !== true) {
    const message = { role: 'assistant', content, refusal: null, annotations: null, audio: null, function_call: null, tool_calls: toolCalls, reasoning_content: null };
    const completion = { id: completionId(), object: 'chat.completion', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason, stop_reason: null }], usage };
    return channel.sendJson(200, completion, headers);
  }
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: object, finish: string | null = null) => sseFrame({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const frames = [chunk({ role: 'assistant', content: '' })];
  if (call === null) {
    for (let at = 0; at < content!.length; at += 8) frames.push(chunk({ content: content!.slice(at, at + 8) }));
  } else {
    frames.push(chunk({ tool_calls: [{ id: call.id, type: 'function', index: 0, function: { name: call.name, arguments: '' } }] }));
    for (let at = 0; at < call.arguments.length; at += 8) frames.push(chunk({ tool_calls: [{ index: 0, function: { arguments: call.arguments.slice(at, at + 8) } }] }));
  }
  frames.push(chunk({ content: '' }, finishReason));
  if (chat.stream_options?.include_usage === true) frames.push(sseFrame({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }));
  frames.push(DONE_FRAME);
  channel.startEventStream();
  for (const frame of frames) if (!(await channel.writeFrame(frame))) return;
  channel.end();
}
