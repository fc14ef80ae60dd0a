// A key's expiry as the admin API and the CLI take it: Unix seconds, an ISO-8601 time (with its
// zone), or a length of time from now (`30d`).

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
const DURATION = /^(\d{1,9})([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Unix ms of Unix seconds (a non-negative integer) or an ISO-8601 date or time; undefined for anything else. */
export function expiryFrom(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 && value <= 253_402_300_799 ? value * 1000 : undefined;
  if (!ISO_8601.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Milliseconds of `30d`, `12h`, `45m` or `90s`; undefined for anything else. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match === null ? undefined : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
