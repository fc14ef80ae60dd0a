import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

let gateway: TestGateway;
let client: OpenAI;
beforeAll(async () => {
  gateway = await startGateway();
  const { key } = await gateway.createKey();
  client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
});
afterAll(() => gateway.close());

it('smoke', async () => {
  const r = await client.responses.create({ model: 'fast', input: 'Say hi', store: false });
  console.log(JSON.stringify(r).slice(0, 600), r.output_text);
  const s = client.responses.stream({ model: 'fast', input: 'Say hi', store: false });
  for await (const e of s) console.log(e.type);
  const f = await s.finalResponse();
  console.log(f.output_text, f.usage);
  expect(f.status).toBe('completed');
});
