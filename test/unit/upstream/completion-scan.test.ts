// The relay reads an upstream's JSON completion in one pass over its bytes. Whatever it vouches for
// must be exactly what JSON.parse would give; whatever it cannot, it leaves to JSON.parse (null).
import { describe, expect, it } from 'vitest';
import { scanCompletion, withModel } from '../../../src/upstream/completion-scan.ts';

const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'upstream-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi "there" \\ čćž 模型 🙂\n', tool_calls: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46, details: { cached: [1.5e3, -0.25, 0] } },
  system_fingerprint: null,
};

/** What the old path did: parse, set the model, read the counts. */
function viaParse(text: string, model: string) {
  const parsed = JSON.parse(text) as Record<string, unknown> & { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  parsed.model = model;
  return parsed;
}

function relayed(text: string, model: string) {
  const bytes = Buffer.from(text);
  const facts = scanCompletion(bytes);
  if (facts === null) return null;
  return { facts, value: JSON.parse(withModel(bytes, facts, model).toString()) as unknown };
}

describe('reading a JSON completion without parsing it', () => {
  it('sets the model and reads the counts as parsing would, in any layout', () => {
    for (const text of [JSON.stringify(completion), JSON.stringify(completion, null, 2), JSON.stringify(completion, null, '\t')]) {
      const result = relayed(text, 'public "id"')!;
      expect(result.value).toEqual(viaParse(text, 'public "id"'));
      expect(result.facts.promptTokens).toBe(12);
      expect(result.facts.completionTokens).toBe(34);
    }
  });

  it('reads usage.prompt_tokens_details.cached_tokens only when asked, leaving anything but a number to parsing', () => {
    const withDetails = (details: unknown) => Buffer.from(JSON.stringify({
      ...completion, usage: { prompt_tokens: 1_200, completion_tokens: 34, prompt_tokens_details: details, completion_tokens_details: { cached_tokens: 9 } },
    }));
    expect(scanCompletion(withDetails({ audio_tokens: 0, cached_tokens: 1_024 }), true)?.cachedTokens).toBe(1_024);
    expect(scanCompletion(withDetails({ audio_tokens: 0, cached_tokens: 1_024 }), true)?.promptTokens).toBe(1_200);
    expect(scanCompletion(withDetails({ cached_tokens: 1_024 }), false)?.cachedTokens).toBeNull();
    expect(scanCompletion(withDetails({ audio_tokens: 0 }), true)?.cachedTokens).toBeNull();
    expect(scanCompletion(withDetails(null), true)?.cachedTokens).toBeNull();
    expect(scanCompletion(withDetails({ cached_tokens: '1024' }), true)).toBeNull();
    expect(scanCompletion(withDetails({ cached_tokens: '1024' }), false)).not.toBeNull();
    // A later scan that does not ask forgets the last one's count.
    scanCompletion(withDetails({ cached_tokens: 7 }), true);
    expect(scanCompletion(Buffer.from(JSON.stringify(completion)), true)?.cachedTokens).toBeNull();
    const { facts, value } = relayed(withDetails({ cached_tokens: 5 }).toString(), 'fast')!;
    expect(facts.cachedTokens).toBeNull();
    expect(value).toEqual(viaParse(withDetails({ cached_tokens: 5 }).toString(), 'fast'));
  });

  it('adds the model when the completion has none, and has no counts without usage', () => {
    const { model: _model, usage: _usage, ...rest } = completion;
    const text = JSON.stringify(rest);
    const result = relayed(text, 'fast')!;
    expect(result.value).toEqual(viaParse(text, 'fast'));
    expect(result.facts).toMatchObject({ promptTokens: null, completionTokens: null });
  });

  it('vouches only for a completion in which a choice finished', () => {
    const of = (choices: string) => Buffer.from(`{"id":"c","choices":[${choices}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`);
    expect(scanCompletion(of('{"index":0,"message":{"content":"a"},"finish_reason":"stop"}'))).not.toBeNull();
    expect(scanCompletion(of('{"index":0,"message":{"content":"a"},"finish_reason":null},{"index":1,"finish_reason" : "length"}'))).not.toBeNull();
    expect(scanCompletion(of('{"index":0,"message":{"content":"a"},"finish_reason":null}'))).toBeNull();
    expect(scanCompletion(of('{"index":0,"message":{"content":"a","finish_reason":"stop"}}'))).toBeNull();
    expect(scanCompletion(of(''))).toBeNull();
  });

  it('leaves to parsing what it cannot vouch for simply', () => {
    const cases = [
      '{"choices":[],"model":"a","model":"b"}', // a repeated key it reads
      '{"choices":[],"mod\\u0065l":"a"}', // a key spelled with escapes
      '{"choices":[],"usage":{"prompt_tokens":"12"}}', // a count that is not a number
      '{"model":"a"}', // no choices
      '{"choices":{}}', // choices not an array
      `{"choices":[],"deep":${'['.repeat(100)}${']'.repeat(100)}}`, // deeper than it follows
      '[]',
    ];
    for (const text of cases) expect(scanCompletion(Buffer.from(text)), text).toBeNull();
  });

  it('refuses every malformed text that JSON.parse refuses (random corruptions of a completion)', () => {
    const source = Buffer.from(JSON.stringify(completion));
    const alphabet = Buffer.from('{}[]",:\\0123456789.eE+-truefalsnl \n\tu');
    let seed = 1;
    const random = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    let vouched = 0;
    for (let trial = 0; trial < 20_000; trial++) {
      const bytes = Buffer.from(source);
      const edits = 1 + random(3);
      let text = bytes;
      for (let edit = 0; edit < edits; edit++) {
        const at = random(text.length);
        const kind = random(3);
        const byte = Buffer.from([alphabet[random(alphabet.length)]!]);
        if (kind === 0) text = Buffer.concat([text.subarray(0, at), text.subarray(at + 1)]);
        else if (kind === 1) text = Buffer.concat([text.subarray(0, at), byte, text.subarray(at)]);
        else text = Buffer.concat([text.subarray(0, at), byte, text.subarray(at + 1)]);
      }
      const facts = scanCompletion(text);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.toString());
      } catch {
        expect(facts, text.toString()).toBeNull();
        continue;
      }
      if (facts === null) continue;
      vouched++;
      expect(JSON.parse(withModel(text, facts, 'm').toString())).toEqual({ ...(parsed as object), model: 'm' });
    }
    expect(vouched).toBeGreaterThan(1_000);
  });
});
