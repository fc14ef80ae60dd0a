// A strict reader for Anthropic Message streams as the gateway sends them: each event an `event:`
// line naming its data's type and one `data:` line; the events in the order Anthropic's clients
// assemble them (message_start first, each block started, delta'd and stopped in turn, then
// message_delta and message_stop), or an `error` event ending the stream.

export interface StreamedMessage {
  readonly events: any[];
  /** The message as a client assembles it; its tool_use inputs parsed from their JSON deltas. */
  readonly message: any;
  /** The error event's data, when the stream ended with one. */
  readonly error: any | null;
}

export function anthropicEvents(text: string): any[] {
  if (!text.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text.slice(0, -2).split('\n\n').map((block) => {
    const lines = block.split('\n');
    if (lines.length !== 2 || !lines[0]!.startsWith('event: ') || !lines[1]!.startsWith('data: ')) throw new Error(`unexpected SSE block: ${JSON.stringify(block)}`);
    const data = JSON.parse(lines[1]!.slice('data: '.length));
    if (lines[0] !== `event: ${data.type}`) throw new Error(`event line ${lines[0]} for data of type ${data.type}`);
    return data;
  });
}

export function readMessageStream(text: string): StreamedMessage {
  const events = anthropicEvents(text).filter((event) => event.type !== 'ping');
  let message: any = null;
  let open = -1;
  const json: string[] = [];
  for (const [position, event] of events.entries()) {
    if (event.type === 'error') {
      if (position !== events.length - 1) throw new Error('events after the error event');
      return { events, message, error: event };
    }
    if (position === 0 ? event.type !== 'message_start' : event.type === 'message_start') throw new Error(`${event.type} at ${position}`);
    switch (event.type) {
      case 'message_start':
        message = structuredClone(event.message);
        break;
      case 'content_block_start':
        if (open !== -1 || event.index !== message.content.length) throw new Error(`block ${event.index} started out of turn`);
        open = event.index;
        message.content.push(structuredClone(event.content_block));
        json[open] = '';
        break;
      case 'content_block_delta': {
        if (event.index !== open) throw new Error(`a delta for block ${event.index} while ${open} is open`);
        const block = message.content[open];
        if (event.delta.type === 'text_delta' && block.type === 'text') block.text += event.delta.text;
        else if (event.delta.type === 'input_json_delta' && block.type === 'tool_use') json[open] += event.delta.partial_json;
        else throw new Error(`${event.delta.type} in a ${block.type} block`);
        break;
      }
      case 'content_block_stop':
        if (event.index !== open) throw new Error(`block ${event.index} stopped while ${open} is open`);
        if (message.content[open].type === 'tool_use' && json[open] !== '') message.content[open].input = JSON.parse(json[open]!);
        open = -1;
        break;
      case 'message_delta':
        if (open !== -1) throw new Error('message_delta with a block open');
        Object.assign(message, event.delta);
        message.usage = { ...message.usage, ...event.usage };
        break;
      case 'message_stop':
        if (position !== events.length - 1 || events[position - 1].type !== 'message_delta') throw new Error('message_stop out of place');
        return { events, message, error: null };
      default:
        throw new Error(`unknown event ${event.type}`);
    }
  }
  throw new Error('the stream ended without message_stop or an error');
}
