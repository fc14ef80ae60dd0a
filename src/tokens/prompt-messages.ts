// A request's messages as text, for token counts and the local engine: tool calls, tool results,
// content parts and the tool definitions become text the way a chat template renders them, so that
// usage counts them as OpenAI's does (close to it: OpenAI's exact rendering is not published).
// Images are not counted here: only upstream models take them, and their usage settles the bill.
import type { ChatMessage, ChatRequestBody } from '../validation/chat-request.ts';
import type { PromptMessage } from './count-tokens.ts';

export function promptMessagesOf(body: ChatRequestBody): PromptMessage[] {
  const messages: PromptMessage[] = [];
  const preamble = preambleOf(body);
  if (preamble !== '') messages.push({ role: 'system', content: preamble });
  for (const message of body.messages) messages.push(promptMessage(message));
  return messages;
}

function preambleOf(body: ChatRequestBody): string {
  let text = '';
  if (body.tools !== undefined && body.tools.length > 0) {
    text += '# Tools\n';
    for (const { function: fn } of body.tools) {
      text += `\n## ${fn.name}\n`;
      if (fn.description !== undefined) text += `${fn.description}\n`;
      if (fn.parameters !== undefined) text += `${JSON.stringify(fn.parameters)}\n`;
    }
  }
  const schema = body.response_format?.json_schema;
  if (schema !== undefined) text += `# Response format: ${schema.name}\n${schema.description ?? ''}${JSON.stringify(schema.schema ?? {})}\n`;
  return text;
}

function promptMessage(message: ChatMessage): PromptMessage {
  const { content, tool_calls: calls } = message;
  let text = typeof content === 'string' ? content : Array.isArray(content) ? textOfParts(content) : '';
  if (calls !== undefined) for (const call of calls) text += `\n${call.function.name}(${call.function.arguments})`;
  return message.name === undefined ? { role: message.role, content: text } : { role: message.role, content: text, name: message.name };
}

function textOfParts(parts: readonly { type: string; text?: string; refusal?: string | null }[]): string {
  let text = '';
  for (const part of parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'refusal') text += part.refusal;
  }
  return text;
}
