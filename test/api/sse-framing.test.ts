// The SSE wire contract, read as raw text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { chunksOf, parseSse } from '../helpers/sse.ts';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway();
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

function post(body: string) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
}

describe('streaming', () => {
  it('sends the OpenAI chunk sequence with the right headers', async () => {
    const response = await post(chatBody({ stream: true, seed: 11, stream_options: { include_usage: true } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    const chunks = chunksOf(await response.text());
    const usageChunk = chunks.at(-1);
    const choiceChunks = chunks.slice(0, -1);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('fast');
    }
    expect(choiceChunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    for (const chunk of choiceChunks.slice(1)) expect(chunk.choices[0].delta.role).toBeUndefined();
    for (const chunk of choiceChunks) expect(chunk.usage).toBeNull();
    const finishes = choiceChunks.filter((chunk) => chunk.choices[0].finish_reason !== null);
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toBe(choiceChunks.at(-1));
    expect(finishes[0].choices[0].delta).toEqual({});
    expect(usageChunk.choices).toEqual([]);
    const text = choiceChunks.map((chunk) => chunk.choices[0].delta.content ?? '').join('');
    expect(usageChunk.usage.completion_tokens).toBeGreaterThan(0);
    expect(text.length).toBeGreaterThan(0);
  });

  it('sends no usage chunk and no usage field unless asked', async () => {
    const chunks = chunksOf(await (await post(chatBody({ stream: true }))).text());
    for (const chunk of chunks) {
      expect(chunk.choices).toHaveLength(1);
      expect('usage' in chunk).toBe(false);
    }
  });

  it('interleaves n choices, each with one role delta and one finish', async () => {
    const chunks = chunksOf(await (await post(chatBody({ stream: true, n: 3, seed: 5 }))).text());
    for (const index of [0, 1, 2]) {
      const mine = chunks.flatMap((chunk) => chunk.choices).filter((choice: any) => choice.index === index);
      expect(mine.filter((choice: any) => choice.delta.role === 'assistant')).toHaveLength(1);
      expect(mine.filter((choice: any) => choice.finish_reason !== null)).toHaveLength(1);
      expect(mine.at(-1).finish_reason).toBe('stop');
    }
  });

  it('ends with finish_reason length at max_tokens', async () => {
    const chunks = chunksOf(await (await post(chatBody({ stream: true, max_tokens: 5, stream_options: { include_usage: true } }))).text());
    expect(chunks.at(-2).choices[0].finish_reason).toBe('length');
    expect(chunks.at(-1).usage.completion_tokens).toBe(5);
  });

  it('rejects bad input before the stream starts, as JSON', async () => {
    const response = await post(chatBody({ stream: true, temperature: 5 }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe('invalid_value');
    expect(() => parseSse(text)).toThrow();
  });
});
