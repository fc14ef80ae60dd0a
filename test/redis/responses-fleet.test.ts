// Two instances on one Redis are one service for stored responses: a conversation started on one
// continues on the other, and either can read, list and delete it (the cap under races: the store contract suite).
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startRedis, type TestRedis } from '../helpers/redis-server.ts';

let redis: TestRedis;
let instances: TestGateway[];
let clients: OpenAI[];

beforeAll(async () => {
  redis = await startRedis();
  instances = [await startGateway(undefined, { env: { REDIS_URL: redis.url } }), await startGateway(undefined, { env: { REDIS_URL: redis.url } })];
  const { key } = await instances[0]!.createKey();
  clients = instances.map((instance) => new OpenAI({ apiKey: key, baseURL: instance.baseURL, maxRetries: 0 }));
}, 30_000);
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await redis.stop();
});

it('continues, reads and deletes a stored response on any instance', async () => {
  const [a, b] = clients as [OpenAI, OpenAI];
  const first = await a.responses.create({ model: 'fast', input: 'My name is Ana.' });
  const second = await b.responses.create({ model: 'fast', input: 'What is my name?', previous_response_id: first.id });
  expect(second.status).toBe('completed');
  expect((await a.responses.retrieve(second.id)).output_text).toBe(second.output_text);
  expect((await b.responses.inputItems.list(first.id)).data).toHaveLength(1);
  await b.responses.delete(first.id);
  const gone = await a.responses.retrieve(first.id).catch((error: unknown) => error);
  expect(gone).toBeInstanceOf(APIError);
  expect((gone as APIError).status).toBe(404);
});
