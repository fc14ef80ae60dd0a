// Every response carries its request's id: the process's prefix and 16 random hex digits, never
// the same twice, across the batches in which the ids are made.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway.close();
});

describe('request ids', () => {
  it('are req_, 12 hex digits of the process and 16 random ones, all different over more than a batch of 1,024', async () => {
    const ids: string[] = [];
    for (let round = 0; round < 26; round++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => fetch(`${gateway.origin}/health`)));
      for (const response of responses) {
        await response.arrayBuffer();
        ids.push(response.headers.get('x-request-id') ?? '');
      }
    }
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{28}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 16))).size).toBe(1);
  });
});
