// Number formatting and markdown tables for the report.

export const MiB = 1024 * 1024;

export const fixed = (value: number | undefined, digits: number) => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '—');
export const thousands = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');
/** Milliseconds with enough digits for sub-millisecond figures. */
export const ms = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : value < 1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(1));
export const signedMs = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`);
export const mib = (bytes: number | undefined) => (bytes === undefined || !Number.isFinite(bytes) ? '—' : (bytes / MiB).toFixed(0));
export const percent = (share: number | undefined) => (share === undefined || !Number.isFinite(share) ? '—' : `${(share * 100).toFixed(0)} %`);
export const ratio = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(2)}×`);

/** A markdown table; columns after the first are right-aligned (numbers) unless `textColumns`. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], textColumns = false): string {
  const align = header.map((_, index) => (index === 0 || textColumns ? '---' : '---:'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
