import { describe, expect, it } from 'vitest';
import { ByteBatch } from '../../../src/streaming/byte-batch.ts';
import { StreamEventFilter } from '../../../src/upstream/stream-event-filter.ts';

const OPTIONS = { upstreamModel: 'up/model', publicModel: 'fast', forwardUsage: false };

/** What the client gets for one event ('' when dropped). */
function relayed(filter: StreamEventFilter, event: Buffer): string {
  const out = new ByteBatch();
  filter.filter(event, event.toString('latin1'), out);
  return Buffer.from(out.take()).toString();
}

const sse = (payload: unknown, spaced = false) =>
  Buffer.from(`data: ${spaced ? JSON.stringify(payload).replaceAll('":', '": ') : JSON.stringify(payload)}\n\n`);
const delta = (content: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up/model',
  choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }],
  ...extra,
});

describe('StreamEventFilter: the events that fit a learned shape', () => {
  it('rewrites and counts them as the full search does', () => {
    const filter = new StreamEventFilter(OPTIONS);
    for (const word of ['Hello', ' there', ' \\n', ' ', '日本']) {
      expect(relayed(filter, sse(delta(word)))).toBe(sse(delta(word)).toString().replace('"model":"up/model"', '"model":"fast"'));
    }
    expect(filter.contentEvents).toBe(5);
  });

  it('takes the full search for a delta with a quote in it, and for an empty one', () => {
    const filter = new StreamEventFilter(OPTIONS);
    const learned = JSON.stringify(delta('learn'));
    relayed(filter, Buffer.from(`data: ${learned}\n\n`));
    // Both have the learned head and tail; the first closes the value early and adds a usage object.
    const closesEarly = 'a"}}],"usage":{"prompt_tokens":1,"completion_tokens":2},"z":[{"q":{"r":"';
    for (const body of [closesEarly, '']) {
      const event = `data: ${learned.replace('"learn"', `"${body}"`)}\n\n`;
      JSON.parse(event.slice(6));
      expect(relayed(filter, Buffer.from(event))).toBe(event.replace('"model":"up/model"', '"model":"fast"'));
    }
    expect(filter.usage).toEqual({ promptTokens: 1, completionTokens: 2, cachedPromptTokens: 0 });
    expect(filter.contentEvents).toBe(1);
  });

  it('agree with a filter that has learned nothing, on 2,000 random events', () => {
    let state = 4242;
    const random = (max: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % max;
    };
    const PIECES = ['a', ' tok', '"', '\\', '\\"', '"usage":{"prompt_tokens":1}', '"model":"up/model"', 'é', '😀', '\n', 'content', ':'];
    const text = () => Array.from({ length: random(4) }, () => PIECES[random(PIECES.length)]).join('');
    const usage = () => ({ prompt_tokens: random(50), completion_tokens: random(50) });
    const kinds: Array<() => Buffer> = [
      () => sse(delta(text())),
      () => sse(delta(text())),
      () => sse(delta(text()), true),
      () => sse(delta(text(), { model: random(2) === 0 ? 'up/model' : 'other' })),
      () => sse({ ...delta(text()), choices: [{ index: 0, delta: { content: text() }, finish_reason: 'stop' }] }),
      () => sse(delta(text(), { usage: random(2) === 0 ? null : usage() })),
      () => sse(delta(text(), { obfuscation: text() })),
      () => sse({ id: 'chatcmpl-1', choices: [{ index: 0, delta: { content: text() } }], model: 'up/model' }),
      () => sse({ ...delta(null), choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: text() } }] } }] }),
      () => sse({ id: 'chatcmpl-1', model: 'up/model', choices: [], usage: usage() }),
      () => Buffer.from(': keep-alive\n\n'),
    ];
    for (let stream = 0; stream < 40; stream++) {
      const filter = new StreamEventFilter(OPTIONS);
      let contentEvents = 0;
      for (let index = 0; index < 50; index++) {
        const event = kinds[random(kinds.length)]!();
        // A fresh filter has learned no shape: it searches every key.
        const reference = new StreamEventFilter(OPTIONS);
        expect(relayed(filter, event)).toBe(relayed(reference, event));
        contentEvents += reference.contentEvents;
        if (reference.usage !== null) expect(filter.usage).toEqual(reference.usage);
      }
      expect(filter.contentEvents).toBe(contentEvents);
    }
  });
});
