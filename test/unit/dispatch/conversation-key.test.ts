import { describe, expect, it } from 'vitest';
import { conversationKey, sharedPrefixHash, sharedPrefixTokens } from '../../../src/dispatch/conversation-key.ts';
import type { ChatRequest } from '../../../src/validation/chat-request.ts';

function request(body: Record<string, unknown>, messages: Array<{ role: string; content: string }>): ChatRequest {
  return { body: { model: 'm', messages, ...body }, messages } as unknown as ChatRequest;
}

const SYSTEM = { role: 'system', content: 'You are a coding agent.' };

describe('conversationKey', () => {
  it('takes prompt_cache_key, then user, then the prompt', () => {
    const messages = [SYSTEM, { role: 'user', content: 'fix the bug' }];
    expect(conversationKey(request({ prompt_cache_key: 'abc', user: 'u1' }, messages))).toBe('k:abc');
    expect(conversationKey(request({ user: 'u1' }, messages))).toBe('u:u1');
    expect(conversationKey(request({}, messages))).toMatch(/^p:[0-9a-z]+$/);
  });

  it('takes the x-munja-session header before anything in the body, and bounds it like a body key', () => {
    const messages = [SYSTEM, { role: 'user', content: 'fix the bug' }];
    expect(conversationKey(request({ prompt_cache_key: 'abc', user: 'u1' }, messages), 'agent-run-7')).toBe('s:agent-run-7');
    expect(conversationKey(request({ prompt_cache_key: 'abc' }, messages), '')).toBe('k:abc');
    expect(conversationKey(request({}, messages), 'x'.repeat(10_000))!.length).toBeLessThan(40);
  });

  it("the turns of one conversation share the prompt's key; another first question gets another", () => {
    const first = [SYSTEM, { role: 'user', content: 'fix the bug' }];
    const later = [...first, { role: 'assistant', content: 'done' }, { role: 'user', content: 'now the tests' }];
    const other = [SYSTEM, { role: 'user', content: 'write docs' }];
    expect(conversationKey(request({}, later))).toBe(conversationKey(request({}, first)));
    expect(conversationKey(request({}, other))).not.toBe(conversationKey(request({}, first)));
  });

  it('bounds a long client key, and has none for an empty prompt', () => {
    const key = conversationKey(request({ prompt_cache_key: 'x'.repeat(10_000) }, [SYSTEM]))!;
    expect(key.length).toBeLessThan(40);
    expect(conversationKey(request({ prompt_cache_key: 'x'.repeat(10_001) }, [SYSTEM]))).not.toBe(key);
    expect(conversationKey(request({}, []))).toBeNull();
  });

  it("estimates a leading system or developer message's tokens as shared; a prompt without one shares none", () => {
    const instructions = 'x'.repeat(4_001);
    expect(sharedPrefixTokens(request({}, [{ role: 'system', content: instructions }, { role: 'user', content: 'fix the bug' }]))).toBe(1_001);
    expect(sharedPrefixTokens(request({}, [{ role: 'developer', content: instructions }]))).toBe(1_001);
    expect(sharedPrefixTokens(request({}, [{ role: 'user', content: instructions }]))).toBe(0);
    expect(sharedPrefixTokens(request({}, []))).toBe(0);
  });

  it("hashes a leading system message, the same for every session that starts with it; 0 without one", () => {
    const a = request({}, [SYSTEM, { role: 'user', content: 'fix the bug' }]);
    const b = request({}, [SYSTEM, { role: 'user', content: 'write docs' }]);
    expect(sharedPrefixHash(a)).not.toBe(0);
    expect(sharedPrefixHash(a)).toBe(sharedPrefixHash(b));
    expect(sharedPrefixHash(request({}, [{ role: 'system', content: 'Another agent.' }]))).not.toBe(sharedPrefixHash(a));
    expect(sharedPrefixHash(request({}, [{ role: 'user', content: 'fix the bug' }]))).toBe(0);
  });
});
