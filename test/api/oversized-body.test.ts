// An oversized request must reach the client as a 413, not as a connection error: the refusal goes
// out while the client is still sending, and the connection lingers (discarding) until the body has
// arrived, so that closing it sends no reset. SDKs retry connection errors, uploading it again.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

const RUNS = 20;
const BODY_BYTES = 32 * 1024 * 1024;

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startGateway(); // the default 4 MiB cap
  ({ key } = await gateway.createKey());
});
afterAll(() => gateway.close());

const hugeContent = 'x'.repeat(BODY_BYTES);

describe('a 32 MiB body on the default settings', () => {
  it(`fetch sees 413 request_too_large in ${RUNS} of ${RUNS} runs`, async () => {
    const body = JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: hugeContent }] });
    const outcomes: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      try {
        const response = await fetch(`${gateway.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        const answer = (await response.json()) as { error?: { code?: string } };
        outcomes.push(`${response.status} ${answer.error?.code}`);
      } catch (error) {
        outcomes.push(`failed: ${(error as Error).message} ${String((error as { cause?: unknown }).cause)}`);
      }
    }
    expect(outcomes).toEqual(Array.from({ length: RUNS }, () => '413 request_too_large'));
  });

  it(`the openai SDK gets an APIError 413 in ${RUNS} of ${RUNS} runs (not a connection error, which it would retry)`, async () => {
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 2 });
    const outcomes: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      try {
        await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: hugeContent }] });
        outcomes.push('200');
      } catch (error) {
        outcomes.push(error instanceof OpenAI.APIError ? `${error.status} ${error.code}` : `failed: ${(error as Error).message}`);
      }
    }
    expect(outcomes).toEqual(Array.from({ length: RUNS }, () => '413 request_too_large'));
  });

  it(`fetch streaming the body (chunked, no Content-Length) sees 413 in ${RUNS} of ${RUNS} runs`, async () => {
    const piece = new TextEncoder().encode('x'.repeat(64 * 1024));
    const outcomes: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= BODY_BYTES) return controller.close();
          sent += piece.byteLength;
          controller.enqueue(piece);
        },
      });
      try {
        const response = await fetch(`${gateway.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
          duplex: 'half',
        } as RequestInit);
        const answer = (await response.json()) as { error?: { code?: string } };
        outcomes.push(`${response.status} ${answer.error?.code}`);
      } catch (error) {
        outcomes.push(`failed: ${(error as Error).message} ${String((error as { cause?: unknown }).cause)}`);
      }
    }
    expect(outcomes).toEqual(Array.from({ length: RUNS }, () => '413 request_too_large'));
  });

  it('past the lingering bound (a 128 MiB body) the 413 still arrives whole', async () => {
    const body = JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: hugeContent.repeat(4) }] });
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
  });

  it('a keyless 32 MiB body gets its 401 the same way', async () => {
    const response = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: hugeContent,
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});
