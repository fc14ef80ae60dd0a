// A chat validation or admission error about a translated request, told in the Responses API's
// names: `max_completion_tokens` is `max_output_tokens`, `response_format` is `text.format`, a
// chat tool is the request's function tool at its own index, a message is somewhere in `input`.
import { ApiError } from '../../errors/api-error.ts';

export function inResponsesTerms(error: unknown, toolIndexes: readonly number[]): unknown {
  if (!(error instanceof ApiError) || error.param === null) return error;
  const param = responsesParam(error.param, toolIndexes);
  if (param === error.param) return error;
  // The message may name the param whole, or only the tool's schema it is in.
  const message = error.message.split(error.param).join(param)
    .replace(/tools\[\d+\](?:\.function)?/g, (found) => responsesParam(found, toolIndexes))
    .replaceAll('response_format.json_schema', 'text.format')
    .replaceAll('max_completion_tokens', 'max_output_tokens');
  return new ApiError(error.code, { param, message, ...(error.headers === undefined ? {} : { headers: error.headers }) });
}

function responsesParam(param: string, toolIndexes: readonly number[]): string {
  if (param === 'max_completion_tokens' || param === 'max_tokens') return 'max_output_tokens';
  if (param.startsWith('response_format.json_schema')) return `text.format${param.slice('response_format.json_schema'.length)}`;
  if (param.startsWith('response_format')) return `text.format${param.slice('response_format'.length)}`;
  if (param.startsWith('messages')) return 'input';
  const tool = /^tools\[(\d+)\](?:\.function)?(.*)$/.exec(param);
  if (tool !== null) return `tools[${toolIndexes[Number(tool[1])] ?? tool[1]}]${tool[2]}`;
  return param;
}
