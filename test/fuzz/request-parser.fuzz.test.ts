// Fuzzing the request parser and validator with random and mutated bodies (bounded, seeded, so a
// failure is reproducible with its seed). Whatever the bytes, the outcome is a validated request or
// an ApiError with a 4xx status: never another exception, a hang, or a polluted prototype.
import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/engine/prng.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { parseJsonBody } from '../../src/validation/parse-json-body.ts';
import { validateChatRequest } from '../../src/validation/validate-chat-request.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 50_000);

const SEEDS = [
  { model: 'fast', messages: [{ role: 'user', content: 'Hello' }] },
  { model: 'pro', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Zdravo, kako si? čćšžđ' }], temperature: 0.7, max_tokens: 50, stream: true, stream_options: { include_usage: true } },
  { model: 'auto', messages: [{ role: 'user', content: 'x' }], stop: ['\n', 'END'], n: 2, seed: 42, top_p: 0.9, metadata: { a: 'b' }, logit_bias: { '50256': -100 } },
];
const TOKENS = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u0000', '__proto__', 'constructor', 'prototype', '1e400', '-0', 'null', 'true', '"model"', '"messages"', '\u00ff', '\ud800', ' ', '9'.repeat(30)];

function mutate(text: string, random: () => number): Uint8Array {
  let out = text;
  const edits = 1 + Math.floor(random() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (out.length + 1));
    const kind = random();
    if (kind < 0.35) out = out.slice(0, at) + TOKENS[Math.floor(random() * TOKENS.length)] + out.slice(at);
    else if (kind < 0.6) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(random() * 8));
    else if (kind < 0.8) out = out.slice(0, at) + out.slice(Math.floor(random() * out.length));
    else out = out.slice(0, at) + out.slice(at, at + 16).repeat(1 + Math.floor(random() * 4)) + out.slice(at);
  }
  const bytes = Buffer.from(out, 'utf8');
  if (random() < 0.05 && bytes.length > 0) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
  return bytes;
}

function randomBytes(random: () => number): Uint8Array {
  const bytes = new Uint8Array(Math.floor(random() * 64));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

describe('request parser and validator, fuzzed', () => {
  it(`gives a request or a 4xx ApiError for ${ITERATIONS} mutated bodies (seed ${SEED})`, () => {
    const random = createRandom(SEED);
    const outcomes = { accepted: 0, refused: 0 };
    for (let i = 0; i < ITERATIONS; i++) {
      const base = JSON.stringify(SEEDS[i % SEEDS.length]);
      const body = random() < 0.1 ? randomBytes(random) : mutate(base, random);
      try {
        validateChatRequest(parseJsonBody(body, { maxDepth: 32 }));
        outcomes.accepted++;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status < 400 || error.status > 499) {
          throw new Error(`iteration ${i}: ${String(error)} for body ${JSON.stringify(Buffer.from(body).toString('latin1').slice(0, 200))}`, { cause: error });
        }
        outcomes.refused++;
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('x');
    // The mutations must exercise both paths, or the fuzzer tests nothing.
    expect(outcomes.accepted).toBeGreaterThan(ITERATIONS / 100);
    expect(outcomes.refused).toBeGreaterThan(ITERATIONS / 2);
  });
});
