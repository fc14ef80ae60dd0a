// The response cache's parts: the key's normalisation, a reply's replay with a fresh id and
// created, and the in-memory store's TTL, byte bound and purges.
import { describe, expect, it } from 'vitest';
import { cacheKey, normalisedBody } from '../../../src/cache/cache-key.ts';
import { cachedReply, replay, replySize } from '../../../src/cache/cached-reply.ts';
import { MemoryReplyStore } from '../../../src/cache/memory-reply-store.ts';
import { createRandom } from '../../../src/engine/prng.ts';

const BASE = { accountId: 'acct_1', protocol: 'chat', model: 'm' } as const;
const MESSAGES = [{ role: 'user', content: 'hi' }];

describe('the cache key', () => {
  it('ignores field order, defaults, nulls and delivery fields', () => {
    const plain = cacheKey({ ...BASE, body: { model: 'm', messages: MESSAGES, temperature: 0 } });
    expect(cacheKey({ ...BASE, body: { temperature: 0, messages: [{ content: 'hi', role: 'user' }], model: 'm', top_p: 1, n: 1, seed: null, user: 'u', stream: false } })).toBe(plain);
  });

  it('tells apart accounts, protocols, models and anything the answer depends on, not the form', () => {
    const body = { model: 'm', messages: MESSAGES, temperature: 0 };
    const keys = new Set([
      cacheKey({ ...BASE, body }),
      cacheKey({ ...BASE, accountId: 'acct_2', body }),
      cacheKey({ ...BASE, protocol: 'responses', body }),
      cacheKey({ ...BASE, model: 'other', body }),
      cacheKey({ ...BASE, body: { ...body, stream: true, stream_options: { include_usage: true } } }),
      cacheKey({ ...BASE, body: { ...body, seed: 1 } }),
      cacheKey({ ...BASE, body: { ...body, messages: [{ role: 'user', content: 'hi!' }] } }),
      cacheKey({ ...BASE, body: { ...body, max_tokens: 5 } }),
    ]);
    expect(keys.size).toBe(7);
  });

  it('reads max_completion_tokens as max_tokens', () => {
    expect(normalisedBody({ max_completion_tokens: 5 })).toBe(normalisedBody({ max_tokens: 5 }));
  });
});

describe('a replayed reply', () => {
  const STREAM = [
    'data: {"id":"chatcmpl-abcdefghijklmnopqrstuvwx","object":"chat.completion.chunk","created":1700000000,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]}\n\n',
    'data: {"id":"chatcmpl-abcdefghijklmnopqrstuvwx","object":"chat.completion.chunk","created":1700000000,"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n',
    'data: [DONE]\n\n',
  ].join('');

  it('has a fresh id of the same shape in every event, and now as created; the rest unchanged', () => {
    const reply = cachedReply('stream', Buffer.from(STREAM), 'acct', 'key');
    const text = replay(reply, 1800000000).toString();
    const ids = [...text.matchAll(/"id":"(chatcmpl-[^"]+)"/g)].map((match) => match[1]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[0]).not.toBe('chatcmpl-abcdefghijklmnopqrstuvwx');
    expect(ids[0]).toMatch(/^chatcmpl-[A-Za-z0-9]{24}$/);
    expect(text.replaceAll(ids[0]!, 'chatcmpl-abcdefghijklmnopqrstuvwx').replaceAll('1800000000', '1700000000')).toBe(STREAM);
    expect(text).toContain('"id":"call_1"');
  });

  it('keeps only the id\'s prefix up to its first separator, however many its random part holds', () => {
    const reply = cachedReply('json', Buffer.from('{"id":"chatcmpl-ab_cd-efghijklmnopqrstuvwxyz","created":1,"choices":[]}'), 'acct', 'key');
    const id = JSON.parse(replay(reply, 9).toString()).id as string;
    expect(id).toMatch(/^chatcmpl-[A-Za-z0-9]{28}$/);
  });

  it('gives an id of any length a fresh tail of that length, in every copy', () => {
    const long = `chatcmpl-${'a'.repeat(1000)}`;
    const reply = cachedReply('stream', Buffer.from(`data: {"id":"${long}","created":1}\n\ndata: {"id":"${long}","created":1}\n\ndata: [DONE]\n\n`), 'acct', 'key');
    const ids = [...replay(reply, 9).toString().matchAll(/"id":"([^"]+)"/g)].map((match) => match[1]);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[0]).toMatch(/^chatcmpl-[A-Za-z0-9]{1000}$/);
    expect(ids[0]).not.toMatch(/a{50}/);
  });

  it('replays a reply of any size, past the buffer replays share, whole', () => {
    const content = 'x'.repeat(1_500_000);
    const reply = cachedReply('json', Buffer.from(`{"id":"chatcmpl-abc","created":1,"choices":[{"message":{"content":"${content}"}}]}`), 'acct', 'key');
    const replayed = JSON.parse(replay(reply, 9).toString()) as { id: string; created: number; choices: Array<{ message: { content: string } }> };
    expect(replayed.id).toMatch(/^chatcmpl-[A-Za-z0-9]{3}$/);
    expect(replayed.created).toBe(9);
    expect(replayed.choices[0]!.message.content).toBe(content);
  });

  it('leaves the stored bytes as they were', () => {
    const reply = cachedReply('json', Buffer.from('{"id":"chatcmpl-x1","created":1,"choices":[]}'), 'acct', 'key');
    replay(reply, 9);
    expect(reply.bytes.toString()).toBe('{"id":"chatcmpl-x1","created":1,"choices":[]}');
    expect(replay(reply, 9).toString()).toMatch(/^\{"id":"chatcmpl-[A-Za-z0-9]{2}","created":9,"choices":\[\]\}$/);
  });
});

describe('the in-memory store', () => {
  const reply = (size: number, accountId = 'acct', keyId = 'key') => cachedReply('json', Buffer.alloc(size, 0x61), accountId, keyId);

  it('drops an entry once its TTL has passed', () => {
    const store = new MemoryReplyStore(1_000_000);
    store.set('a', reply(10), 1000, 0);
    expect(store.get('a', 'acct', 999)).toBeDefined();
    expect(store.get('a', 'acct', 1000)).toBeUndefined();
    expect(store.bytes).toBe(0);
  });

  it('stays within its bytes, evicting the least recently used first', () => {
    const store = new MemoryReplyStore(1000);
    store.set('a', reply(300), 60_000, 0);
    store.set('b', reply(300), 60_000, 0);
    expect(store.get('a', 'acct', 1)).toBeDefined();
    store.set('c', reply(300), 60_000, 0);
    expect(store.bytes).toBeLessThanOrEqual(1000);
    expect(store.get('b', 'acct', 1)).toBeUndefined();
    expect(store.get('a', 'acct', 1)).toBeDefined();
    expect(store.get('c', 'acct', 1)).toBeDefined();
  });

  it('does not keep a reply larger than its bound', () => {
    const store = new MemoryReplyStore(100);
    store.set('a', reply(200), 60_000, 0);
    expect(store.size).toBe(0);
  });

  it('holds each account to its bound, evicting its own least recently used entries first', () => {
    const one = reply(10);
    const size = replySize(one);
    // Room for four entries in all, two per account.
    const store = new MemoryReplyStore(4 * size, 2 * size);
    store.set('a1', reply(10, 'acct_a'), 60_000, 0);
    store.set('b1', reply(10, 'acct_b'), 60_000, 0);
    store.set('a2', reply(10, 'acct_a'), 60_000, 0);
    expect(store.get('a1', 'acct_a', 1)).toBeDefined();
    // acct_a is at its bound: its least recently used entry (a2, since a1 was just read) goes, not b1.
    store.set('a3', reply(10, 'acct_a'), 60_000, 0);
    expect(store.get('a2', 'acct_a', 1)).toBeUndefined();
    expect(store.get('a1', 'acct_a', 1)).toBeDefined();
    expect(store.get('a3', 'acct_a', 1)).toBeDefined();
    expect(store.get('b1', 'acct_b', 1)).toBeDefined();
    expect(store.bytes).toBe(3 * size);
    // A reply over the account's bound is not kept.
    store.set('big', reply(3 * size, 'acct_b'), 60_000, 0);
    expect(store.get('big', 'acct_b', 1)).toBeUndefined();
    expect(store.purge({ all: true })).toBe(3);
    expect(store.bytes).toBe(0);
  });

  it('keeps and evicts exactly as a least-recently-used list per account and for the whole cache would', () => {
    const one = replySize(reply(10));
    for (let seed = 1; seed <= 50; seed++) {
      const next = createRandom(seed);
      const store = new MemoryReplyStore(6 * one, 3 * one);
      // The reference: every entry in the order of its last use, oldest first.
      let used: Array<{ key: string; account: string }> = [];
      const drop = (key: string) => { used = used.filter((entry) => entry.key !== key); };
      for (let step = 0; step < 200; step++) {
        const number = Math.floor(next() * 12);
        const [key, account] = [`k${number}`, `acct_${number % 3}`];
        const where = `seed ${seed}, step ${step}`;
        if (next() < 0.5) {
          store.set(key, reply(10, account), 60_000, 0);
          drop(key);
          used.push({ key, account });
          const ofAccount = used.filter((entry) => entry.account === account);
          if (ofAccount.length > 3) drop(ofAccount[0]!.key);
          if (used.length > 6) drop(used[0]!.key);
        } else {
          const kept = used.find((entry) => entry.key === key);
          expect(store.get(key, account, 1) !== undefined, where).toBe(kept !== undefined);
          if (kept !== undefined) {
            drop(key);
            used.push(kept);
          }
        }
        expect(store.size, where).toBe(used.length);
        expect(store.bytes, where).toBe(used.length * one);
      }
    }
  });

  it('purges by account, by the key that filled an entry, or all', () => {
    const store = new MemoryReplyStore(1_000_000);
    store.set('a', reply(10, 'acct_1', 'key_1'), 60_000);
    store.set('b', reply(10, 'acct_1', 'key_2'), 60_000);
    store.set('c', reply(10, 'acct_2', 'key_3'), 60_000);
    expect(store.purge({ keyId: 'key_2', accountId: 'acct_1' })).toBe(1);
    expect(store.purge({ accountId: 'acct_1' })).toBe(1);
    expect(store.get('c')).toBeDefined();
    expect(store.purge({ all: true })).toBe(1);
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
  });
});
