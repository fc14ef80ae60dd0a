// Issue 20, finding 8: the password policy was length only, so "password123" passed.
import { describe, expect, it } from 'vitest';
import { passwordProblem } from '../../../src/dashboard/password-policy.ts';

describe('passwordProblem', () => {
  it.each([
    'password123', 'Password2024!', 'P@ssw0rd2024', 'qwerty123456', 'iloveyou!!!!', 'letmein12345', '1234567890',
    '0987654321', 'qwertyuiop', 'asdfghjkl;', 'aaaaaaaaaaaa', 'abcabcabcabc', 'passwordpassword', 'Munja2024!!', 'dragon1234567',
  ])('refuses the common or breached pattern %s', (password) => {
    expect(passwordProblem(password)).toMatch(/common/);
  });

  it('refuses a password built on the email address', () => {
    expect(passwordProblem('anamaria2024', 'anamaria@example.com')).toMatch(/email/);
    expect(passwordProblem('anamaria2024', 'other@example.com')).toBeNull();
  });

  it.each(['correct horse battery', 'tz8-Vq!m2Lp9', 'mačka na krovu 7', 'purple-otter-drinks-tea'])('accepts %s', (password) => {
    expect(passwordProblem(password, 'ana@example.com')).toBeNull();
  });

  it('still bounds the length', () => {
    expect(passwordProblem('tz8-Vq!m2')).toMatch(/at least 10/);
    expect(passwordProblem('x'.repeat(60) + 'y'.repeat(69))).toMatch(/at most 128/);
  });
});
