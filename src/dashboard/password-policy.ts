// What a dashboard password must be, for sign-up and for `munja accounts password`.
export const MIN_PASSWORD_CHARS = 10;
export const MAX_PASSWORD_CHARS = 128;

/** Why the password is refused, or null when it is acceptable. Counts characters, not UTF-16 units. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_CHARS) return `Use a password of at least ${MIN_PASSWORD_CHARS} characters.`;
  if (length > MAX_PASSWORD_CHARS) return `Use a password of at most ${MAX_PASSWORD_CHARS} characters.`;
  return null;
}
