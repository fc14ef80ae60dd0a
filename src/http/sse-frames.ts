// Server-sent events as chat completions frame them: a `data:` line and a blank line, `[DONE]` last.

export function frame(data: string): string {
  return `data: ${data}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

/** A stream's last events after a failure: the error in the API's shape, then [DONE]. */
export function errorEvents(error: unknown): string {
  return frame(JSON.stringify(error)) + DONE_FRAME;
}
