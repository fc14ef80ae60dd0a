// A stream of distinct large schemas from one account is refused (429 with Retry-After) once its
// budget of engine time for compiling schemas is spent; another account is served. Default settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctSchema } from '../helpers/costly-schemas.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway({});
});
afterAll(() => gateway.close());

function post(key: string): Promise<Response> {
  const body = {
    model: 'default',
    messages: [{ role: 'user', content: 'Fill it in.' }],
    max_tokens: 1,
    response_format: { type: 'json_schema', json_schema: { name: 'form', schema: distinctSchema(43_000) } },
  };
  return fetch(`${gateway.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('the schema compile budget', () => {
  it('refuses an account its distinct 43 KB schemas once its budget is spent, and serves another account', async () => {
    const { key } = await gateway.createKey({ accountEmail: 'schemas@example.com' });
    let refused: Response | null = null;
    let served = 0;
    // How many fit in the budget depends on this machine's speed (3 s a minute of compiling, each
    // 43 KB schema tens to hundreds of ms): ask until refused, with a bound that stops a broken budget.
    for (let attempt = 0; attempt < 300 && refused === null; attempt++) {
      const response = await post(key);
      if (response.status === 200) served++;
      else refused = response;
      await response.arrayBuffer().catch(() => null);
    }
    expect(served).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const again = await post(key);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');

    const other = await gateway.createKey({ accountEmail: 'other@example.com' });
    const response = await post(other.key);
    expect(response.status).toBe(200);
  });
});
