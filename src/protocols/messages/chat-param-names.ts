// A chat validation, admission or engine error about a translated request, told in the Messages
// API's names and notation (`tools.2.input_schema`): `response_format` is `output_config.format`,
// `stop` is `stop_sequences`, a chat tool is the request's tool of the same name (deferred tools are
// left out of the chat offer, so the indexes differ), a message is somewhere in `messages` (a
// system prompt comes first in chat).
import { ApiError } from '../../errors/api-error.ts';

/** `toolIndexes[i]`: the request's index of the chat request's tool i. */
export function inMessagesTerms(error: unknown, toolIndexes: readonly number[]): unknown {
  if (!(error instanceof ApiError) || error.param === null) return error;
  const param = messagesParam(error.param, toolIndexes);
  if (param === error.param) return error;
  // The message may name the param whole, or only the tool's schema it is in.
  const message = error.message.split(error.param).join(param)
    .replace(/tools\[\d+\](?:\.function)?(?:\.parameters)?/g, (found) => messagesParam(found, toolIndexes))
    .replaceAll('response_format.json_schema.schema', 'output_config.format.schema')
    .replaceAll('max_completion_tokens', 'max_tokens');
  return new ApiError(error.code, { param, message, ...(error.headers === undefined ? {} : { headers: error.headers }) });
}

function messagesParam(param: string, toolIndexes: readonly number[]): string {
  if (param === 'max_completion_tokens') return 'max_tokens';
  if (param === 'stop' || param.startsWith('stop[')) return 'stop_sequences';
  if (param.startsWith('response_format.json_schema.schema')) return `output_config.format.schema${dotted(param.slice('response_format.json_schema.schema'.length))}`;
  if (param.startsWith('response_format')) return 'output_config.format';
  if (param.startsWith('messages')) return 'messages';
  if (param.startsWith('tool_choice')) return 'tool_choice';
  const tool = /^tools\[(\d+)\](?:\.function)?(.*)$/.exec(param);
  if (tool === null) return param;
  const index = toolIndexes[Number(tool[1])] ?? Number(tool[1]);
  const rest = tool[2]!.startsWith('.parameters') ? `.input_schema${tool[2]!.slice('.parameters'.length)}` : tool[2]!;
  return `tools.${index}${dotted(rest)}`;
}

/** `[3]` segments as `.3`, Anthropic's notation. */
function dotted(path: string): string {
  return path.replace(/\[(\d+)\]/g, '.$1');
}
