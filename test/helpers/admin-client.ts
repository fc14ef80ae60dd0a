// Calls the admin API (or any /v1 path) with a key, as JSON.
export interface JsonAnswer {
  readonly status: number;
  readonly body: any;
}

export function adminClient(origin: string, key: string) {
  return async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonAnswer> {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
}

export function chatCall(origin: string, key: string): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
  });
}
