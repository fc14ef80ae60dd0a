// What a dashboard password must be, for sign-up and for `munja accounts password`: 10 to 128
// characters, and not a common or breached pattern (common-passwords.ts, checked offline): a common
// word with digits and symbols around it ("Password2024!"), a keyboard walk or count
// ("1234567890", "qwertyuiop"), one short piece repeated ("abcabcabcabc"), or the email's own name.
import { COMMON_WORDS, SEQUENCES } from './common-passwords.ts';

export const MIN_PASSWORD_CHARS = 10;
export const MAX_PASSWORD_CHARS = 128;

const WORDS = new Set(COMMON_WORDS);
const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's', '!': 'i' };
const COMMON = 'Choose a less common password: this one is, or is built on, a word or pattern at the top of leaked-password lists.';

/** Why the password is refused, or null when it is acceptable. Counts characters, not UTF-16 units. */
export function passwordProblem(password: string, email = ''): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS) return `Use a password of at least ${MIN_PASSWORD_CHARS} characters.`;
  if (length > MAX_PASSWORD_CHARS) return `Use a password of at most ${MAX_PASSWORD_CHARS} characters.`;
  const lower = password.toLowerCase();
  if (isRepetition(lower) || isSequence(lower) || isCommonWord(lower)) return COMMON;
  const name = email.split('@')[0]?.toLowerCase() ?? '';
  if (name.length >= 4 && isCommonWord(lower, name)) return 'Choose a password that is not built on your email address.';
  return null;
}

/** One piece of at most a third of the length, repeated ("aaaaaaaaaa", "abcabcabcabc", "12121212121"). */
function isRepetition(text: string): boolean {
  for (let size = 1; size <= text.length / 3; size++) {
    if (text.length % size === 0 && text.slice(0, size).repeat(text.length / size) === text) return true;
  }
  return false;
}

/** A run of at least 10 characters from a keyboard row or a count, forwards or back. */
function isSequence(text: string): boolean {
  const letters = text.replace(/[^a-z0-9]/g, '');
  return letters.length >= text.length - 2 && SEQUENCES.some((sequence) => (sequence + sequence).includes(letters));
}

/** The text is a common word (or `word`), possibly in leetspeak or doubled, padded with digits and symbols. */
function isCommonWord(text: string, word?: string): boolean {
  const plain = text.replace(/^[^a-z]+/, '').replace(/[^a-z]+$/, '');
  const core = [...plain].map((char) => LEET[char] ?? char).join('');
  for (const candidate of new Set([core, plain])) {
    const half = candidate.length % 2 === 0 ? candidate.slice(0, candidate.length / 2) : '';
    const single = half !== '' && half + half === candidate ? half : candidate;
    if (word === undefined ? WORDS.has(single) || WORDS.has(candidate) : single === word || candidate === word) return true;
  }
  return false;
}
