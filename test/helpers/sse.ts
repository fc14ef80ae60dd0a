// A strict reader for the SSE bodies the gateway sends: `data: …` events separated by a blank line.

export interface SseEvent {
  readonly data: string;
}

export function parseSse(text: string): SseEvent[] {
  if (!text.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -2)
    .split('\n\n')
    .filter((block) => !block.startsWith(':'))
    .map((block) => {
      if (!block.startsWith('data: ') || block.includes('\n')) throw new Error(`unexpected SSE block: ${JSON.stringify(block)}`);
      return { data: block.slice('data: '.length) };
    });
}

export interface NamedSseEvent {
  readonly event: string;
  readonly data: string;
}

/** A strict reader for named events (`event: …` then `data: …`), as the Responses and Messages streams send them. */
export function parseNamedSse(text: string): NamedSseEvent[] {
  if (!text.endsWith('\n\n')) throw new Error(`stream does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const match = /^event: ([^\n]+)\ndata: ([^\n]*)$/.exec(block);
      if (match === null) throw new Error(`unexpected SSE block: ${JSON.stringify(block.slice(0, 200))}`);
      return { event: match[1]!, data: match[2]! };
    });
}

/** The JSON chunks of a stream, checking it ends with [DONE] and nothing follows it. */
export function chunksOf(text: string): any[] {
  const events = parseSse(text);
  const last = events.at(-1);
  if (last?.data !== '[DONE]') throw new Error('stream does not end with data: [DONE]');
  return events.slice(0, -1).map((event) => JSON.parse(event.data));
}
