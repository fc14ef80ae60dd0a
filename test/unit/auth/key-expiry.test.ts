// A key's expiry as given to the admin API and the CLI: Unix seconds, ISO-8601 with its zone or a
// date, or a length of time.
import { expect, it } from 'vitest';
import { durationMs, expiryFrom } from '../../../src/auth/key-expiry.ts';

it('reads Unix seconds and ISO-8601 times with a zone, or dates (midnight UTC)', () => {
  expect(expiryFrom(1_900_000_000)).toBe(1_900_000_000_000);
  expect(expiryFrom('2030-01-31T12:30:00Z')).toBe(Date.UTC(2030, 0, 31, 12, 30));
  expect(expiryFrom('2030-01-31T12:30:00.5+02:00')).toBe(Date.UTC(2030, 0, 31, 10, 30, 0, 500));
  expect(expiryFrom('2030-01-31T12:30+0200')).toBe(Date.UTC(2030, 0, 31, 10, 30));
  expect(expiryFrom('2030-01-31')).toBe(Date.UTC(2030, 0, 31));
});

it('refuses anything else: no zone, words, fractions of a second as a number, impossible dates', () => {
  for (const bad of ['2030-01-31T12:30:00', 'tomorrow', '31/01/2030', '2030-13-01', '', 1.5, -1, Number.NaN, 1e20]) {
    expect(expiryFrom(bad), String(bad)).toBeUndefined();
  }
});

it('reads lengths of time in seconds, minutes, hours and days', () => {
  expect(durationMs('90s')).toBe(90_000);
  expect(durationMs('45m')).toBe(2_700_000);
  expect(durationMs('12h')).toBe(43_200_000);
  expect(durationMs(' 30d ')).toBe(2_592_000_000);
  for (const bad of ['30', '3w', '1.5d', '-1d', 'd', '']) expect(durationMs(bad), bad).toBeUndefined();
});
