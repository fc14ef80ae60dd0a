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

/** `table`, its cells padded to their column's width, for reading in a terminal. */
export function paddedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => row[index]?.length ?? 0)));
  const numeric = header.map((_, index) => index > 1 && rows.every((row) => /^[\d,.—-]+$|^\d/.test(row[index] ?? '')));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, index) => (numeric[index] ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!))).join(' | ')} |`;
  const rule = `| ${widths.map((width, index) => (numeric[index] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
