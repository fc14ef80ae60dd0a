// Completion ids come from a pool of random bytes: OpenAI's shape, and never the same id twice
// across refills of the pool.
import { describe, expect, it } from 'vitest';
import { completionId } from '../../../src/streaming/completion-id.ts';

describe('completion ids', () => {
  it('are chatcmpl- and 24 base64url characters, all different across several refills of the pool', () => {
    const ids = Array.from({ length: 3_000 }, () => completionId());
    for (const id of ids) expect(id).toMatch(/^chatcmpl-[A-Za-z0-9_-]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
