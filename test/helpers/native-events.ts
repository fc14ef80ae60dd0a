// Responses and Messages streams as their servers write them (`event:` then `data:`), for the tests
// of the native relay: the mock upstream sends them, and unit tests feed them to the filters.

export function sse(name: string, data: Record<string, unknown>): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function responseObject(model: string, status: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'resp_mock1', object: 'response', created_at: 1_700_000_000, status, error: null, incomplete_details: null, instructions: null, model, output: [], parallel_tool_calls: true, tool_choice: 'auto', tools: [], usage: null, ...extra };
}

export function outputMessage(text: string): Record<string, unknown> {
  return { id: 'msg_mock1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

/** A Responses stream's events: the lifecycle's start, `deltas` as output text, then (when `end`) response.completed with usage. */
export function responsesEvents(model: string, deltas: readonly string[], usage: { input: number; output: number }, end = true): string[] {
  let sequence = 0;
  const event = (name: string, data: Record<string, unknown>) => sse(name, { type: name, sequence_number: sequence++, ...data });
  const item = { id: 'msg_mock1', type: 'message', status: 'in_progress', role: 'assistant', content: [] };
  const text = deltas.join('');
  const events = [
    event('response.created', { response: responseObject(model, 'in_progress') }),
    event('response.in_progress', { response: responseObject(model, 'in_progress') }),
    event('response.output_item.added', { output_index: 0, item }),
    event('response.content_part.added', { item_id: 'msg_mock1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ...deltas.map((delta) => event('response.output_text.delta', { item_id: 'msg_mock1', output_index: 0, content_index: 0, delta, logprobs: [] })),
  ];
  if (!end) return events;
  return [
    ...events,
    event('response.output_text.done', { item_id: 'msg_mock1', output_index: 0, content_index: 0, text, logprobs: [] }),
    event('response.content_part.done', { item_id: 'msg_mock1', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations: [] } }),
    event('response.output_item.done', { output_index: 0, item: outputMessage(text) }),
    event('response.completed', {
      response: responseObject(model, 'completed', {
        output: [outputMessage(text)],
        usage: { input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output },
      }),
    }),
  ];
}

export function messageObject(model: string, text: string, usage: { input: number; output: number }): Record<string, unknown> {
  return { id: 'msg_mock1', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: usage.output } };
}

/** A Messages stream's events: message_start, one text block of `deltas`, then (when `end`) message_delta with usage and message_stop. */
export function messagesEvents(model: string, deltas: readonly string[], usage: { input: number; output: number }, end = true): string[] {
  const events = [
    sse('message_start', { type: 'message_start', message: { id: 'msg_mock1', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: 1 } } }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    'event: ping\ndata: {"type": "ping"}\n\n',
    ...deltas.map((text) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
  ];
  if (!end) return events;
  return [
    ...events,
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } }),
    sse('message_stop', { type: 'message_stop' }),
  ];
}
