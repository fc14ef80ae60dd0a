// The items a stored response keeps: this turn's input as Responses items (ids assigned, text as
// parts, as `GET /v1/responses/{id}/input_items` lists them), and its output as chat messages (the
// conversation a later `previous_response_id` continues).
import { randomId } from '../../streaming/completion-id.ts';
import type { OutputItem } from './response-object.ts';
import type { ResponsesInputItem, TranslatedMessage } from './responses-request.ts';

const ID_PREFIXES: Readonly<Record<string, string>> = { message: 'msg_', function_call: 'fc_', function_call_output: 'fco_', reasoning: 'rs_' };

export function inputItemsOf(input: string | readonly ResponsesInputItem[]): Record<string, unknown>[] {
  if (typeof input === 'string') return [{ id: randomId('msg_'), type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  return input.map((item) => {
    const type = item.type ?? 'message';
    const id = item.id ?? randomId(ID_PREFIXES[type] ?? 'item_');
    if (type !== 'message' || typeof item.content !== 'string') return { ...item, id, type };
    const partType = item.role === 'assistant' ? 'output_text' : 'input_text';
    return { ...item, id, type, content: [{ type: partType, text: item.content }] };
  });
}

export function outputMessages(output: readonly OutputItem[]): TranslatedMessage[] {
  const messages: TranslatedMessage[] = [];
  for (const item of output) {
    // A chat model is not given its own reasoning back.
    if (item.type === 'reasoning') continue;
    if (item.type === 'message') {
      messages.push({ role: 'assistant', content: item.content.map((part) => part.text).join('') });
      continue;
    }
    const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } };
    const last = messages.at(-1);
    if (last?.role === 'assistant') messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  }
  return messages;
}
