// One rule for email identity, shared by every Store implementation and the CLI:
// trimmed and lower-cased, so lookups are case-insensitive.

const MAX_EMAIL_LENGTH = 254;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * A plausibility check, not RFC 5322: one `@`, a domain of non-empty labels (`localhost` is
 * fine), no spaces or control characters.
 */
export function isPlausibleEmail(email: string): boolean {
  const normalised = normaliseEmail(email);
  return normalised.length <= MAX_EMAIL_LENGTH && !CONTROL_CHARS.test(normalised) && EMAIL_SHAPE.test(normalised);
}
