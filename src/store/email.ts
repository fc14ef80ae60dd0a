// One rule for email identity, shared by every Store implementation, the dashboard and the CLI.
// An address is one plain addr-spec, trimmed and lower-cased, so lookups are case-insensitive. Its
// mailbox drops a `+tag` from the local part: `ana+munja@example.com` reaches the same mailbox as
// `ana@example.com`, so sign-up allows one account per mailbox (see createAccountWithPassword).

const MAX_EMAIL_LENGTH = 254;
// RFC 5321/5322 dot-atom local part (at most 64 characters) and a domain of letter-digit-hyphen
// labels; no display name, list, comment, quoted local part, whitespace or non-ASCII character, so
// nothing downstream (the mailer's address parser above all) can read it as more than one address.
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const ADDR_SPEC = new RegExp(`^(?=[^@]{1,64}@)${ATEXT}+(?:\\.${ATEXT}+)*@${LABEL}(?:\\.${LABEL})*$`);

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether the email, once normalised, is one plain address (`admin@localhost` is fine). */
export function isPlausibleEmail(email: string): boolean {
  const normalised = normaliseEmail(email);
  return normalised.length <= MAX_EMAIL_LENGTH && ADDR_SPEC.test(normalised);
}

/**
 * The mailbox of a normalised address: without the `+tag` of its local part. A local part that
 * starts with `+` is kept whole. The same rule, in SQL and Lua, indexes accounts made before it.
 */
export function mailboxOf(email: string): string {
  const at = email.lastIndexOf('@');
  const plus = email.indexOf('+');
  return plus > 0 && plus < at ? email.slice(0, plus) + email.slice(at) : email;
}
