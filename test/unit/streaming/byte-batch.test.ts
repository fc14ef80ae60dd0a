import { describe, expect, it } from 'vitest';
import { ByteBatch } from '../../../src/streaming/byte-batch.ts';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

describe('ByteBatch', () => {
  it('joins its ranges in order and is empty again once taken', () => {
    const batch = new ByteBatch();
    expect(batch.empty).toBe(true);
    const event = Buffer.from('data: {"model":"up"}\n\n');
    batch.add(event, 0, 15);
    batch.add(Buffer.from('"ours"'));
    batch.add(event, 19);
    batch.add(event, 3, 3); // an empty range adds nothing
    expect(batch.empty).toBe(false);
    expect(text(batch.take())).toBe('data: {"model":"ours"}\n\n');
    expect(batch.empty).toBe(true);
    expect(batch.take().length).toBe(0);
  });

  it('hands back a single whole buffer itself, without a copy', () => {
    const batch = new ByteBatch();
    const event = Buffer.from('data: [DONE]\n\n');
    batch.add(event);
    expect(batch.take()).toBe(event);
    batch.add(event, 6);
    expect(text(batch.take())).toBe('[DONE]\n\n');
  });

  it('joins more than the shared buffer holds, and more than its cap', () => {
    const batch = new ByteBatch();
    for (const size of [100 * 1024, 3 * 1024 * 1024]) {
      const pieces = [Buffer.alloc(size / 2, 'a'), Buffer.alloc(size / 2, 'b')];
      for (const piece of pieces) batch.add(piece);
      const joined = batch.take();
      expect(joined.length).toBe(size);
      expect(Buffer.compare(joined, Buffer.concat(pieces))).toBe(0);
    }
  });
});
