// A kept Responses or Messages stream served to a JSON request: the Response its
// `response.completed` event carries, or the Message its events build (message_start's message,
// each content block with its deltas joined, message_delta's stop and usage). The other way, a
// JSON reply as one of these streams, is not made: such a request is a miss, and its stream
// replaces the entry, which then answers both.

/** The JSON reply `stream` says, for `protocol`; undefined when it cannot be made whole from it. */
export function jsonOfStream(protocol: string, stream: string): string | undefined {
  const events = payloads(stream);
  const reply = protocol === 'responses' ? responseOf(events) : protocol === 'messages' ? messageOf(events) : undefined;
  return reply === undefined ? undefined : JSON.stringify(reply);
}

type Event = Record<string, unknown>;

/** The payloads of the stream's `data:` lines, in order. */
function payloads(stream: string): Event[] {
  const found: Event[] = [];
  for (const block of stream.split('\n\n')) {
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) found.push(JSON.parse(line.slice(5).trim()) as Event);
    }
  }
  return found;
}

function responseOf(events: readonly Event[]): Event | undefined {
  const completed = events.findLast((event) => event.type === 'response.completed');
  return isObject(completed?.response) ? completed.response : undefined;
}

function messageOf(events: readonly Event[]): Event | undefined {
  const start = events.find((event) => event.type === 'message_start');
  if (!isObject(start?.message)) return undefined;
  const message: Event = { ...start.message };
  const blocks: Event[] = [];
  const partialJson = new Map<number, string>();
  for (const event of events) {
    const index = typeof event.index === 'number' ? event.index : -1;
    if (event.type === 'content_block_start' && isObject(event.content_block)) blocks[index] = { ...event.content_block };
    else if (event.type === 'content_block_delta' && isObject(event.delta) && blocks[index] !== undefined) {
      const block = blocks[index];
      const delta = event.delta;
      if (delta.type === 'input_json_delta') partialJson.set(index, (partialJson.get(index) ?? '') + String(delta.partial_json ?? ''));
      else if (delta.type === 'text_delta') block.text = String(block.text ?? '') + String(delta.text ?? '');
      else if (delta.type === 'thinking_delta') block.thinking = String(block.thinking ?? '') + String(delta.thinking ?? '');
      else if (delta.type === 'signature_delta') block.signature = delta.signature;
      else return undefined;
    } else if (event.type === 'message_delta') {
      if (isObject(event.delta)) Object.assign(message, event.delta);
      if (isObject(event.usage)) message.usage = { ...(isObject(message.usage) ? message.usage : {}), ...event.usage };
    }
  }
  for (const [index, json] of partialJson) blocks[index]!.input = json === '' ? {} : JSON.parse(json) as unknown;
  message.content = blocks.filter((block) => block !== undefined);
  return message;
}

function isObject(value: unknown): value is Event {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
