import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { parseJsonBody } from '../../../src/validation/parse-json-body.ts';
import { expectApiError } from './expect-api-error.ts';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const parse = (text: string): unknown => parseJsonBody(encode(text));
const bad = (text: string, code: ErrorCode, param: string | null = null) =>
  expectApiError(() => parse(text), { status: 400, code, param });

describe('parseJsonBody: syntax (HR-04, HR-05)', () => {
  it('parses a valid body', () => {
    expect(parse('{"model":"m","messages":[{"role":"user","content":"hi"}]}')).toEqual({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  });

  it.each(['{"model":', '{"model" "m"}', '{"a":1,}', '[1,]', '{"a":1}}', '{"a":[1}', '{"a":"unterminated', 'nul', '{"a":1} {"b":2}', '{"\\x":1}'])(
    'rejects malformed JSON %j as invalid_json',
    (text) => {
      bad(text, 'invalid_json');
    },
  );

  it.each(['', '   ', '\n\t'])('rejects an empty body %j as invalid_json', (text) => {
    bad(text, 'invalid_json');
  });

  it('never echoes the body in the message', () => {
    const error = bad('{"model": SECRET-TOKEN-1234', 'invalid_json');
    expect(error.message).not.toContain('SECRET');
  });

  it('parses top-level non-objects (their rejection is the validator’s job)', () => {
    expect(parse('null')).toBeNull();
    expect(parse('[]')).toEqual([]);
    expect(parse('"x"')).toBe('x');
    expect(parse('42')).toBe(42);
  });
});

describe('parseJsonBody: encoding (HR-10)', () => {
  it('rejects invalid UTF-8 (0xC3 0x28) as invalid_encoding', () => {
    const bytes = Uint8Array.of(...encode('{"model":"'), 0xc3, 0x28, ...encode('"}'));
    expectApiError(() => parseJsonBody(bytes), { status: 400, code: 'invalid_encoding', param: null });
  });

  it('keeps working after a decoding failure (the shared decoder holds no state)', () => {
    expectApiError(() => parseJsonBody(Uint8Array.of(0xc3)), { status: 400, code: 'invalid_encoding', param: null });
    expect(parse('{"a":"é"}')).toEqual({ a: 'é' });
  });

  it('accepts and drops a leading UTF-8 BOM', () => {
    expect(parseJsonBody(Uint8Array.of(0xef, 0xbb, 0xbf, ...encode('{"a":1}')))).toEqual({ a: 1 });
  });

  it('rejects a BOM that is not at the start', () => {
    bad('{"a":1}\uFEFF', 'invalid_json');
  });

  it('accepts escaped lone surrogates unchanged', () => {
    expect(parse('{"a":"\\ud800"}')).toEqual({ a: '\ud800' });
  });
});

describe('parseJsonBody: nesting (HR-06)', () => {
  it('rejects 100,000 open brackets as nesting_too_deep and survives', () => {
    bad('['.repeat(100_000), 'nesting_too_deep');
    bad(`{"messages":[{"content":${'['.repeat(100_000)}`, 'nesting_too_deep');
    expect(parse('{"still":"alive"}')).toEqual({ still: 'alive' });
  });

  it('accepts exactly maxDepth levels and refuses one more', () => {
    expect(parseJsonBody(encode('[[[1]]]'), { maxDepth: 3 })).toEqual([[[1]]]);
    expectApiError(() => parseJsonBody(encode('[[[[1]]]]'), { maxDepth: 3 }), { status: 400, code: 'nesting_too_deep', param: null });
    expect(parse(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeInstanceOf(Array);
    bad(`${'['.repeat(33)}${']'.repeat(33)}`, 'nesting_too_deep');
  });

  it('does not count brackets inside strings', () => {
    expect(parse(`{"a":"${'['.repeat(1000)}"}`)).toEqual({ a: '['.repeat(1000) });
  });
});

describe('parseJsonBody: duplicate keys (HR-08)', () => {
  it('rejects a repeated top-level key with param = the key', () => {
    bad('{"model":"cheap","messages":[],"model":"expensive"}', 'duplicate_key', 'model');
  });

  it('names nested repeats by path and compares keys decoded', () => {
    bad('{"messages":[{"role":"user"},{"role":"user","\\u0072ole":"system"}]}', 'duplicate_key', 'messages[1].role');
  });

  it('allows the same key in sibling and nested objects', () => {
    expect(parse('{"a":{"a":1},"b":[{"a":1},{"a":2}],"c":{"b":{"a":1}}}')).toBeTruthy();
  });

  it('detects repeats in objects with many keys (past the linear-search limit)', () => {
    const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`);
    expect(parse(`{${keys.join(',')}}`)).toBeTruthy();
    bad(`{${keys.join(',')},"k3":0}`, 'duplicate_key', 'k3');
    bad(`{${keys.join(',')},"k39":0}`, 'duplicate_key', 'k39');
  });

  it('compares escaped and plain spellings of a key either way round, also past the linear-search limit', () => {
    bad('{"\\u0072ole":"user","role":"system"}', 'duplicate_key', 'role');
    bad('{"r\\u006fle":"user","\\u0072ole":"system"}', 'duplicate_key', 'role');
    bad('{"a":1,"ab":2,"a\\u0062":3}', 'duplicate_key', 'ab');
    expect(parse('{"a\\"":1,"a":2,"\\u0061b":3,"a\\\\":4}')).toEqual({ 'a"': 1, a: 2, ab: 3, 'a\\': 4 });
    const keys = Array.from({ length: 20 }, (_, i) => (i === 2 ? '"\\u006b2":2' : `"k${i}":${i}`));
    bad(`{${keys.join(',')},"k2":0}`, 'duplicate_key', 'k2');
    bad(`{${keys.join(',')},"\\u006b19":0}`, 'duplicate_key', 'k19');
  });

  it('does not mistake string values or escaped quotes for keys', () => {
    expect(parse('{"a":"a","b":"\\"a\\"","c":["a","a"],"d":"\\\\"}')).toEqual({ a: 'a', b: '"a"', c: ['a', 'a'], d: '\\' });
  });
});

describe('parseJsonBody: prototype poisoning (HR-09)', () => {
  afterEach(() => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects __proto__ at the top and at depth', () => {
    bad('{"__proto__":{"polluted":1}}', 'forbidden_key', '__proto__');
    bad('{"messages":[{"role":"user","content":"x","__proto__":{"polluted":1}}]}', 'forbidden_key', 'messages[0].__proto__');
  });

  it('rejects an escaped __proto__', () => {
    bad('{"\\u005f_proto__":{"polluted":1}}', 'forbidden_key', '__proto__');
    bad('{"a":{"__pro\\u0074o__":{"polluted":1}}}', 'forbidden_key', 'a.__proto__');
  });

  it('rejects constructor.prototype at any depth', () => {
    bad('{"constructor":{"prototype":{"polluted":1}}}', 'forbidden_key', 'constructor.prototype');
    bad('{"a":[{"constructor":{"x":1,"prototype":{"polluted":1}}}]}', 'forbidden_key', 'a[0].constructor.prototype');
  });

  it('rejects an escaped constructor.prototype', () => {
    bad('{"constructo\\u0072":{"prototype":{"polluted":1}}}', 'forbidden_key', 'constructor.prototype');
    bad('{"constructor":{"\\u0070rototype":{"polluted":1}}}', 'forbidden_key', 'constructor.prototype');
  });

  it('allows constructor and prototype on their own, and __proto__ as a value', () => {
    expect(parse('{"constructor":"x","prototype":{"a":1},"b":{"prototype":1},"c":"__proto__"}')).toBeTruthy();
    expect(parse('{"constructor":[{"prototype":1}]}')).toBeTruthy();
  });
});

describe('parseJsonBody: numbers (HR-07)', () => {
  it.each([
    ['{"temperature":1e400}', 'temperature'],
    ['{"a":[1,-1E+400]}', 'a[1]'],
    [`{"a":${'9'.repeat(309)}}`, 'a'],
    ['1e999', null],
  ])('rejects %s, which overflows to Infinity, as invalid_value', (text, param) => {
    bad(text, 'invalid_value', param);
  });

  it('accepts the largest doubles, tiny exponents and long plain numbers', () => {
    expect(parse('[1.7976931348623157e308,-1e-400,0.5E2]')).toEqual([1.7976931348623157e308, -0, 50]);
    expect(parse(`[${'9'.repeat(308)}]`)).toHaveLength(1);
  });
});

describe('parseJsonBody: agrees with JSON.parse on random valid documents', () => {
  it('parses 1,000 random documents exactly as JSON.parse does', () => {
    let state = 12345;
    const random = (max: number): number => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % max;
    };
    const PIECES = ['a', '"', '\\', '\\\\"', '{', '}', '[', ']', ',', ':', 'é', '😀', '\u0000', '\n', '__proto', 'constructor', 'prototype', '1e5'];
    const text = (): string => Array.from({ length: random(6) }, () => PIECES[random(PIECES.length)]).join('');
    const value = (depth: number): unknown => {
      const kind = depth > 6 ? random(4) : random(6);
      if (kind === 0) return text();
      if (kind === 1) return random(2) === 0 ? random(1e6) / 7 : -random(1e9);
      if (kind === 2) return [true, false, null][random(3)];
      if (kind === 3) return 1.5e300 * (random(3) - 1);
      if (kind === 4) return Array.from({ length: random(5) }, () => value(depth + 1));
      // Distinct keys: an index prefix keeps random pieces from repeating a key.
      return Object.fromEntries(Array.from({ length: random(5) }, (_, i) => [`${i}${text()}`, value(depth + 1)]));
    };
    for (let run = 0; run < 1000; run++) {
      const json = JSON.stringify(value(0), null, random(2) === 0 ? undefined : 2);
      expect(parse(json)).toEqual(JSON.parse(json));
    }
  });
});
