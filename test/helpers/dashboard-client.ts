// Talks to the dashboard's JSON API the way its pages do: same-origin headers, the session cookie
// and the CSRF token kept between calls. Plus a gateway on the Redis store for the same tests.
import { Agent, fetch as undiciFetch } from 'undici';
import type { ConfigFile } from '../../src/config/config-file.ts';
import { FAST_TEST_CONFIG, type TestGateway, startGateway } from './gateway.ts';

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

export class DashboardClient {
  readonly origin: string;
  cookie = '';
  csrfToken = '';
  /** Sent as-is on every request (e.g. a cross-site Origin). */
  extraHeaders: Record<string, string> = {};

  readonly #agent: Agent | null;

  /**
   * `localAddress` (e.g. 127.0.0.2: all of 127/8 is loopback) makes this client a different TCP
   * peer from the others, so per-address limits apply to it apart on the default settings.
   */
  constructor(origin: string, localAddress?: string) {
    this.origin = origin;
    this.#agent = localAddress === undefined ? null : new Agent({ localAddress });
  }

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
    const send = this.#agent === null ? fetch : (url: string, init: RequestInit) => undiciFetch(url, { ...init, dispatcher: this.#agent } as never) as unknown as Promise<Response>;
    const response = await send(this.origin + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'GET' ? {} : { origin: this.origin, 'sec-fetch-site': 'same-origin' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(this.csrfToken ? { 'x-csrf-token': this.csrfToken } : {}),
        ...this.extraHeaders,
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = /Max-Age=0\b/.test(setCookie) ? '' : setCookie.split(';')[0]!;
    const text = await response.text();
    const parsed = text === '' ? null : JSON.parse(text);
    if (parsed?.csrfToken) this.csrfToken = parsed.csrfToken;
    return { status: response.status, headers: response.headers, body: parsed };
  }

  signUp(email: string, password = 'correct horse battery'): Promise<ApiAnswer> {
    return this.call('POST', '/dashboard/api/sign-up', { email, password });
  }

  signIn(email: string, password = 'correct horse battery'): Promise<ApiAnswer> {
    return this.call('POST', '/dashboard/api/sign-in', { email, password });
  }

  async close(): Promise<void> {
    await this.#agent?.close();
  }
}

/** Like startGateway, on the Redis store at `redisUrl` when given. */
export function startDashboardGateway(options: { redisUrl?: string; config?: ConfigFile } = {}): Promise<TestGateway> {
  const config = options.config ?? FAST_TEST_CONFIG;
  if (options.redisUrl === undefined) return startGateway(config);
  return startGateway({ redis: { commandTimeoutMs: 1_000 }, ...config }, { env: { REDIS_URL: options.redisUrl, MUNJA_WORKERS: '1' } });
}
