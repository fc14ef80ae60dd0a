// Builds `param` values in OpenAI's notation: `messages[0].role`, `stream_options.include_usage`.

/** Keys chosen by the client are cut short so a megabyte-long key is never reflected back. */
const MAX_SHOWN_KEY_CHARS = 64;

export function appendKey(path: string, key: string): string {
  const shown = key.length > MAX_SHOWN_KEY_CHARS ? `${key.slice(0, MAX_SHOWN_KEY_CHARS)}…` : key;
  return path === '' ? shown : `${path}.${shown}`;
}

export function appendIndex(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** An empty path means the whole body is at fault: no `param` (the response shows `null`). */
export function toParam(path: string): string | undefined {
  return path === '' ? undefined : path;
}
