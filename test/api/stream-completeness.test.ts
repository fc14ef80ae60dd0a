// A relayed completion is whole or says it is not: an upstream that ends a stream before a choice
// finished, sends bytes that are not server-sent events, or an event past the size cap, gives the
// client an error event (then [DONE]); a JSON completion cut short is refused. Default settings.
import OpenAI, { APIError } from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { chatBody } from '../helpers/http.ts';
import { chunkEvent, contentEvent, FINISH_EVENT, type ScriptedUpstream, startScriptedUpstream, stream } from '../helpers/scripted-upstream.ts';
import { chunksOf } from '../helpers/sse.ts';

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let key: string;
let keyId: string;

// A gateway each: the circuit breaker counts a broken stream as a failure of its upstream.
beforeEach(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startGateway({ engine: { threads: 1 }, models: { fast: { upstreams: [{ baseUrl: upstream.baseUrl, model: 'up-model' }] } } });
  ({ key, id: keyId } = await gateway.createKey());
});
afterEach(async () => {
  await gateway.close();
  await upstream.close();
});

function post(body: Record<string, unknown>) {
  return fetch(`${gateway.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(body),
  });
}

/** The stream's chunks (checked to end with [DONE]) and the text they carried. */
async function streamed() {
  const response = await post({ stream: true });
  expect(response.status).toBe(200);
  const chunks = chunksOf(await response.text());
  const text = chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
  return { chunks, text, last: chunks.at(-1) };
}

/** Deterministic bytes that look like nothing in particular. */
function noise(length: number): Buffer {
  let seed = 33;
  return Buffer.from(Array.from({ length }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 23));
}

describe('a stream that ends before a choice finished', () => {
  it('ends with an upstream_error event after the partial text, and bills what was streamed', async () => {
    upstream.answer = stream(contentEvent('Hel'), contentEvent('lo, '), contentEvent('wor'));
    const { chunks, text, last } = await streamed();
    expect(text).toBe('Hello, wor');
    expect(last.error.code).toBe('upstream_error');
    expect(chunks.filter((chunk) => chunk.error !== undefined)).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    await vi.waitFor(async () => {
      const [usage] = await gateway.app.store.usageByDay([keyId], today, today);
      expect(usage?.completionTokens).toBe(3);
    });
  });

  it('is an error too when the upstream sent [DONE] without finishing', async () => {
    upstream.answer = stream(contentEvent('Hel'), 'data: [DONE]\n\n');
    const { text, last } = await streamed();
    expect(text).toBe('Hel');
    expect(last.error.code).toBe('upstream_error');
  });

  it('makes the openai SDK throw', async () => {
    upstream.answer = stream(contentEvent('Hel'));
    const client = new OpenAI({ apiKey: key, baseURL: gateway.baseURL, maxRetries: 0 });
    const chunks = await client.chat.completions.create({ model: 'fast', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    const read = (async () => {
      for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? '';
    })();
    await expect(read).rejects.toBeInstanceOf(APIError);
    expect(text).toBe('Hel');
  });

  it('is whole once a choice finished, with or without [DONE] from the upstream', async () => {
    upstream.answer = stream(contentEvent('Hi'), FINISH_EVENT);
    let result = await streamed();
    expect(result.text).toBe('Hi');
    expect(result.last.choices[0].finish_reason).toBe('stop');
    upstream.answer = stream(chunkEvent('{"index":0,"delta":{"content":"Bye"},"finish_reason":"length"}'), 'data: [DONE]\n\n', '\n');
    result = await streamed();
    expect(result.text).toBe('Bye');
    expect(result.last.choices[0].finish_reason).toBe('length');
  });
});

describe('bytes that are not an event stream', () => {
  it('600 random bytes under a 200 event-stream answer are an error event, not a bare [DONE]', async () => {
    upstream.answer = stream(noise(600));
    const { chunks, last } = await streamed();
    expect(chunks).toHaveLength(1);
    expect(last.error.code).toBe('upstream_error');
  });

  it('a line that is no SSE field ends the stream with an error event, after what came before it', async () => {
    upstream.answer = stream(contentEvent('Hi'), '<html>\n<body>oops</body>\n\n', contentEvent(' there'), FINISH_EVENT);
    const { text, last } = await streamed();
    expect(text).toBe('Hi');
    expect(last.error.code).toBe('upstream_error');
  });

  it('an event left without its blank line at the end is an error event', async () => {
    upstream.answer = stream(contentEvent('Hi'), FINISH_EVENT.trimEnd());
    const { text, last } = await streamed();
    expect(text).toBe('Hi');
    expect(last.error.code).toBe('upstream_error');
  });
});

describe('an event larger than the cap (1 MiB)', () => {
  it('ends the stream with an error event and aborts the upstream request', async () => {
    let written = 0;
    upstream.answer = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(contentEvent('Hi'));
      response.write('data: {"choices":[{"delta":{"content":"');
      const piece = Buffer.alloc(16 * 1024, 'a');
      // Until the gateway hangs up, well past the cap if it never does.
      const more = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024) {
          written += piece.length;
          if (!response.write(piece)) return response.once('drain', more);
        }
        response.end();
      };
      more();
    };
    const { text, last } = await streamed();
    expect(text).toBe('Hi');
    expect(last.error.code).toBe('upstream_error');
    await vi.waitFor(() => expect(upstream.aborted).toBe(1));
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('a JSON completion cut short', () => {
  const completion = (choice: string) => `{"id":"c1","object":"chat.completion","created":1,"model":"up-model","choices":[${choice}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`;
  const json = (body: string) => (response: import('node:http').ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  };

  it('is refused with 502 upstream_error when no choice finished', async () => {
    upstream.answer = json(completion('{"index":0,"message":{"role":"assistant","content":"Hel"},"finish_reason":null}'));
    const response = await post({});
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('upstream_error');
    upstream.answer = json(completion('{"index":0,"message":{"role":"assistant","content":"Hel"}}'));
    expect((await post({})).status).toBe(502);
  });

  it('is refused with 502 upstream_error when its JSON is cut', async () => {
    const whole = completion('{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}');
    upstream.answer = json(whole.slice(0, -20));
    const response = await post({});
    expect(response.status).toBe(502);
    expect((await response.json()).error.code).toBe('upstream_error');
  });

  it('is passed on when a choice finished', async () => {
    upstream.answer = json(completion('{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}'));
    const response = await post({});
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('Hello');
  });
});
