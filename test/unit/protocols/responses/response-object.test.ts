import { describe, expect, it } from 'vitest';
import { responseFrame, type ResponseState, responseJson, responseObject } from '../../../../src/protocols/responses/response-object.ts';
import type { ResponsesBody } from '../../../../src/protocols/responses/responses-request.ts';

describe('responseJson', () => {
  const full = {
    model: 'm', input: 'hi', instructions: 'Be "brief".\n', max_output_tokens: 64, max_tool_calls: 2, parallel_tool_calls: false,
    previous_response_id: 'resp_prev', prompt_cache_key: 'k', reasoning: { effort: 'low' }, safety_identifier: 'u1', temperature: 0.2,
    text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } }, verbosity: 'low' }, tool_choice: 'required', top_logprobs: 0, top_p: 0.9, user: 'me', metadata: { a: 'b' },
    tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'web_search' }],
  } as unknown as ResponsesBody;
  const states: ResponseState[] = [
    { status: 'in_progress', output: [], usage: null },
    { status: 'completed', output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hé "x"', annotations: [], logprobs: [] }] }], usage: { input_tokens: 3, output_tokens: 4 } },
    { status: 'incomplete', output: [], usage: { input_tokens: 3, output_tokens: 64 }, incompleteReason: 'max_output_tokens' },
    { status: 'failed', output: [], usage: null, error: { code: 'server_error', message: 'cut "short"' } },
  ];

  for (const body of [{ model: 'm', input: 'hi' } as ResponsesBody, full]) {
    it(`is the JSON of responseObject, for every status (${Object.keys(body).length} request fields)`, () => {
      const frame = responseFrame('resp_1', 17, 'public-model', body, true);
      for (const state of states) {
        const json = JSON.parse(responseJson(frame, state)) as Record<string, unknown>;
        const object = responseObject(frame, state);
        // completed_at is the clock's second: equal unless the two calls straddle one.
        expect({ ...json, completed_at: 0 }).toEqual(JSON.parse(JSON.stringify({ ...object, completed_at: 0 })));
        expect(json['completed_at'] === null).toBe(state.status !== 'completed');
      }
    });
  }
});
