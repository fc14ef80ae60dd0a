// A request's band: the key's own, then the config's for the key, the account's own, the config's
// for the account, and the config's default.
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/authenticator.ts';
import type { PriorityConfig } from '../../../src/config/config-types.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { priorityOf } from '../../../src/dispatch/queue-priority.ts';

function principal(fields: Partial<Principal> = {}): Principal {
  return { keyId: 'key_a', accountId: 'acct_a', models: null, limits: { rpm: 1, tpm: 1 }, ...fields };
}

const NAMED: PriorityConfig = {
  default: 'low',
  keys: new Map([['key_a', 'high']]),
  accounts: new Map([['acct_a', 'normal']]),
};

describe('priorityOf', () => {
  it('is `normal` on the defaults, for a key and account that carry none', () => {
    expect(loadConfig({}).priority.default).toBe('normal');
    expect(priorityOf(principal(), loadConfig({}).priority)).toBe('normal');
  });

  it('takes the most specific setting: the key, the config for the key, the account, the config for the account, the default', () => {
    expect(priorityOf(principal({ keyPriority: 'low', accountPriority: 'high' }), NAMED)).toBe('low');
    expect(priorityOf(principal({ accountPriority: 'low' }), NAMED)).toBe('high');
    expect(priorityOf(principal({ keyId: 'key_b', accountPriority: 'low' }), NAMED)).toBe('low');
    expect(priorityOf(principal({ keyId: 'key_b' }), NAMED)).toBe('normal');
    expect(priorityOf(principal({ keyId: 'key_b', accountId: 'acct_b', keyPriority: null, accountPriority: null }), NAMED)).toBe('low');
  });

  it('reads `limits.priority` as a band or as a default with ids', () => {
    expect(loadConfig({}, { limits: { priority: 'high' } }).priority).toEqual({ default: 'high', keys: new Map(), accounts: new Map() });
    const named = loadConfig({}, { limits: { priority: { keys: { key_x: 'low' }, accounts: { acct_y: 'high' } } } }).priority;
    expect(named.default).toBe('normal');
    expect(named.keys.get('key_x')).toBe('low');
    expect(named.accounts.get('acct_y')).toBe('high');
  });
});
