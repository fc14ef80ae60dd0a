import { describe, expect, it } from 'vitest';
import { createRandom } from '../../../src/engine/prng.ts';
import { parseJsonBody } from '../../../src/validation/parse-json-body.ts';
import { validateChatRequest } from '../../../src/validation/validate-chat-request.ts';

const FULL_REQUEST = {
  model: 'default',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'developer', content: 'Answer in English.' },
    { role: 'user', content: 'Hi, I am Ana.', name: 'ana' },
    { role: 'assistant', content: 'Hello Ana.', refusal: null },
    { role: 'user', content: 'Tell me a story 📖 in \u0000 three words. "Quoted" \\ {[' },
  ],
  temperature: 0.7,
  top_p: 0.9,
  presence_penalty: -0.5,
  frequency_penalty: 0.5,
  max_completion_tokens: 256,
  n: 2,
  stop: 'END',
  seed: -42,
  user: 'user-1',
  stream: true,
  stream_options: { include_usage: true, include_obfuscation: false },
  logit_bias: { '0': -100, '50256': 100 },
  logprobs: true,
  top_logprobs: 20,
  response_format: { type: 'json_schema', json_schema: { name: 'story', strict: true, schema: { type: 'object', properties: { constructor: { type: 'string' } } } } },
  tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: null } }],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  parallel_tool_calls: false,
  metadata: { team: 'a', 'key.with.dots': 'b' },
  store: false,
  service_tier: 'auto',
  reasoning_effort: 'low',
  safety_identifier: 'hash-123',
  prompt_cache_key: 'cache-1',
  modalities: ['text'],
  verbosity: 'medium',
  prediction: { type: 'content', content: [{ type: 'text', text: 'Once' }] },
};

const fromJson = (value: unknown) => validateChatRequest(parseJsonBody(new TextEncoder().encode(JSON.stringify(value))));

describe('valid chat requests', () => {
  it('accepts a request using every field and normalises it', () => {
    const request = fromJson(FULL_REQUEST);
    expect(request.body).toEqual(FULL_REQUEST);
    expect(request).toMatchObject({
      model: 'default',
      stream: true,
      includeUsage: true,
      maxTokens: 256,
      maxTokensParam: 'max_completion_tokens',
      n: 2,
      stop: ['END'],
      temperature: 0.7,
      topP: 0.9,
      seed: -42,
      logprobs: true,
      topLogprobs: 20,
    });
    // The tool definitions and the response format count as a leading system message.
    expect(request.messages).toHaveLength(6);
    expect(request.structured).toMatchObject({ toolChoice: { function: { name: 'get_weather' } }, parallelToolCalls: false, contentPartsAt: -1 });
  });

  it('normalises a minimal request to the defaults', () => {
    const request = fromJson({ model: 'm', messages: [{ role: 'user', content: '' }] });
    expect(request).toMatchObject({ stream: false, includeUsage: false, maxTokens: null, n: 1, stop: [], temperature: null, topP: null, seed: null, logprobs: false, topLogprobs: null });
  });

  it('takes max_tokens when it is the one given, and keeps a stop list as sent', () => {
    const request = fromJson({ model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 7, stop: ['a', 'b'], stream: false });
    expect(request).toMatchObject({ maxTokens: 7, maxTokensParam: 'max_tokens', stop: ['a', 'b'], stream: false, includeUsage: false });
  });

  it('round-trips random valid bodies', () => {
    const random = createRandom(20240611);
    for (let run = 0; run < 500; run++) {
      const body = randomBody(random);
      const request = fromJson(body);
      expect(request.body).toEqual(body);
      expect(request.messages).toEqual(body.messages);
      expect(request.n).toBe(body.n ?? 1);
      expect(request.maxTokens).toBe(body.max_tokens ?? null);
      expect(request.stop).toEqual(body.stop === undefined ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop);
    }
  });
});

interface RandomBody {
  model: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  top_p?: number;
  n?: number;
  max_tokens?: number;
  stop?: string | string[];
  seed?: number;
  stream?: boolean;
}

const ROLES = ['system', 'developer', 'user', 'assistant'];
const CHARS = 'abc xyz ŠđČ 日本 😀 "\\/\n\t{}[],:';

function randomBody(random: () => number): RandomBody {
  const int = (max: number) => Math.floor(random() * max);
  const text = (max: number) => Array.from({ length: int(max) }, () => [...CHARS][int([...CHARS].length)]).join('');
  const body: RandomBody = {
    model: `m-${int(1000)}`,
    messages: Array.from({ length: 1 + int(6) }, () => ({ role: ROLES[int(ROLES.length)] ?? 'user', content: text(40) })),
  };
  if (random() < 0.5) body.temperature = Math.round(random() * 200) / 100;
  if (random() < 0.5) body.top_p = random();
  if (random() < 0.5) body.n = 1 + int(128);
  if (random() < 0.5) body.max_tokens = 1 + int(100_000);
  // oxlint-disable-next-line no-dupe-else-if -- each random() is a new draw
  if (random() < 0.3) body.stop = 'x' + text(5);
  else if (random() < 0.3) body.stop = Array.from({ length: 1 + int(4) }, () => 'y' + text(5));
  if (random() < 0.5) body.seed = int(2 ** 40) - 2 ** 39;
  if (random() < 0.5) body.stream = random() < 0.5;
  return body;
}

