// Issue 20, finding 2: more keys must not mean more quota. On the default limits an account gets
// what one key gets, shared by all its keys: ten keys of one account, each sending as much as a lone
// key, together get at most 1.5 × the lone key's admissions (the slack covers the refill while the
// test runs). Before the fix, each key had a bucket of its own and the ten got about ten times as much.
import { Pool } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type TestGateway, startGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';

let gateway: TestGateway;
let pool: Pool;

beforeAll(async () => {
  gateway = await startGateway();
  pool = new Pool(gateway.origin, { connections: 16 });
});

afterAll(async () => {
  await pool.close();
  await gateway.close();
});

const BODY = chatBody({ model: 'fast', max_tokens: 1 });

async function admitted(keys: readonly string[], perKey: number): Promise<number> {
  // Interleaved, so that every key keeps asking while the others do.
  const order = Array.from({ length: perKey }, () => keys).flat();
  let ok = 0;
  let next = 0;
  const worker = async () => {
    while (next < order.length) {
      const key = order[next++]!;
      const { statusCode, body } = await pool.request({
        path: '/v1/chat/completions', method: 'POST', body: BODY,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      await body.dump();
      if (statusCode === 200) ok++;
      else expect(statusCode).toBe(429);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return ok;
}

it('gives ten keys of one account together at most 1.5 × what one key gets', { timeout: 120_000 }, async () => {
  const { key: alone } = await gateway.createKey({ accountEmail: 'alone@example.com' });
  const single = await admitted([alone], 700);
  expect(single).toBeGreaterThanOrEqual(600);
  const keys: string[] = [];
  for (let i = 0; i < 10; i++) keys.push((await gateway.createKey({ accountEmail: 'many@example.com', name: `k${i}` })).key);
  const together = await admitted(keys, 700);
  expect(together).toBeLessThanOrEqual(1.5 * single);
});
