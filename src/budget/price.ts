// What a request costs, in micro-units of the service's currency (integers: amounts are never
// floats once counted). A price per million tokens in currency units is the same number in
// micro-units per token.
import type { ModelPrice } from '../config/config-types.ts';

export const MICROS_PER_UNIT = 1_000_000;

/** Rounded up once, so that a request is never free because each of its tokens costs a fraction of a micro-unit. */
export function costMicros(price: ModelPrice | null | undefined, promptTokens: number, completionTokens: number, cachedPromptTokens = 0): number {
  if (price == null) return 0;
  const cached = Math.min(cachedPromptTokens, promptTokens);
  return Math.ceil((promptTokens - cached) * price.input + cached * price.cachedInput + completionTokens * price.output);
}

/** A currency amount as micro-units. */
export function toMicros(amount: number): number {
  return Math.round(amount * MICROS_PER_UNIT);
}

/** Micro-units as a currency amount with its six decimals, for headers, logs and tables. */
export function formatMicros(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  return `${sign}${Math.floor(abs / MICROS_PER_UNIT)}.${String(abs % MICROS_PER_UNIT).padStart(6, '0')}`;
}
