// Calls the dashboard's JSON API. Every change carries the session's CSRF token in a header,
// which a page on another site can neither read nor send.
let csrfToken = '';

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `The request failed (${status}).`);
    this.status = status;
    this.code = error?.code ?? 'unknown';
    this.param = error?.param ?? null;
  }
}

export function setCsrfToken(token) {
  csrfToken = token ?? '';
}

async function call(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let response;
  try {
    response = await fetch(`/dashboard/api/${path}`, {
      method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { message: 'Munja cannot be reached. Check your connection and try again.', code: 'network' });
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

export const api = {
  get: (path) => call('GET', path),
  post: (path, body = {}) => call('POST', path, body),
};
