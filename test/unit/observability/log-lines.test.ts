import { describe, expect, it } from 'vitest';
import { LogLines, rawBytes, writeDecimal } from '../../../src/observability/log-lines.ts';

function written(write: (lines: LogLines) => void): string {
  const regions: Buffer[] = [];
  const lines = new LogLines((region) => regions.push(Buffer.from(region)), { eachLine: true });
  lines.begin(64 * 1024);
  write(lines);
  lines.end();
  return Buffer.concat(regions).toString('utf8');
}

// A small deterministic generator, so that a failure names its case.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('LogLines', () => {
  it('writes hundredths exactly as JSON.stringify(Math.round(v * 100) / 100), for 20,000 values', () => {
    const random = generator(20261125);
    const values = [0, 0.004, 0.005, 0.01, 0.1, 0.99, 0.995, 1, 12.05, 12.5, 99.999, 1e6 + 0.07, 2 ** 40 + 0.25, 1e300, -0.5, -12.34];
    for (let index = 0; index < 20_000; index++) values.push(random() * 10 ** Math.floor(random() * 9));
    for (const value of values) {
      expect(written((lines) => lines.hundredths(value)), String(value)).toBe(JSON.stringify(Math.round(value * 100) / 100));
    }
  });

  it('writes a non-negative safe integer as String() does, across the 32-bit boundary and up to 2^53 − 1, for 20,000 values', () => {
    const random = generator(20261127);
    const values = [0, 9, 10, 99999, 100000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 999_999_999, 1e9, 1e9 + 1, 1_764_222_000_123, Number.MAX_SAFE_INTEGER];
    for (let index = 0; index < 20_000; index++) values.push(Math.floor(random() * 10 ** Math.floor(random() * 16)));
    const bytes = Buffer.alloc(32, 0x78);
    for (const value of values) {
      const end = writeDecimal(bytes, 3, value);
      expect(bytes.toString('latin1', 3, end), String(value)).toBe(String(value));
    }
  });

  it('writes a string as JSON.stringify does: plain, escaped, beyond ASCII, short and long', () => {
    const random = generator(7);
    const alphabet = ['a', 'Z', '0', ' ', '/', '"', '\\', '\n', '\u0001', '\u007f', 'é', '€', '😀', '\u2028'];
    const texts = ['', 'POST', '/v1/chat/completions', 'x'.repeat(64), 'x'.repeat(65), `${'y'.repeat(63)}"`, `${'y'.repeat(70)}"`];
    for (let index = 0; index < 5_000; index++) {
      const length = Math.floor(random() * 90);
      let text = '';
      for (let at = 0; at < length; at++) text += random() < 0.8 ? 'k' : alphabet[Math.floor(random() * alphabet.length)];
      texts.push(text);
    }
    for (const text of texts) expect(written((lines) => lines.string(text)), JSON.stringify(text)).toBe(JSON.stringify(text));
  });

  it('writes raw text and pre-encoded bytes as they are, one after the other', () => {
    const long = 'k'.repeat(100);
    expect(written((lines) => {
      lines.bytes(rawBytes('{"a":'));
      lines.raw('12');
      lines.raw(`,"b":"${long}"}`);
    })).toBe(`{"a":12,"b":"${long}"}`);
  });
});
