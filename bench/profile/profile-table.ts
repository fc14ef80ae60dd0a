// A profile's comparison as markdown: the rounds' CPU per request of the profiled request and its
// baseline, then the µs per request of each part, medians of the rounds.
import { fixed, table } from '../format.ts';
import { spreadOf } from '../rounds.ts';

export interface Measured {
  readonly cpuUsPerRequest: number;
  readonly requestsPerSecond: number;
  /** µs per request by part. */
  readonly parts: ReadonlyMap<string, number>;
}

/** The profiled request against its baseline, in one round. */
export interface Row {
  readonly base: Measured;
  readonly measured: Measured;
}

/** What a table compares: the request, what one of it is called, and the two columns. */
export interface Comparison {
  readonly title: string;
  readonly unit: string;
  readonly base: string;
  readonly measured: string;
}

export function renderComparison(rows: readonly Row[], comparison: Comparison): string {
  const { title, unit, base: baseLabel, measured: measuredLabel } = comparison;
  const parts = new Set<string>();
  for (const row of rows) for (const part of [...row.base.parts.keys(), ...row.measured.parts.keys()]) parts.add(part);
  const byPart = [...parts].map((part) => {
    const base = median(rows.map((row) => row.base.parts.get(part) ?? 0));
    const measured = median(rows.map((row) => row.measured.parts.get(part) ?? 0));
    return { part, base, measured, added: measured - base };
  });
  const shown = byPart.filter((row) => Math.abs(row.added) >= 0.05 || row.base >= 0.05 || row.measured >= 0.05).sort((a, b) => b.measured - a.measured || b.base - a.base);
  const rest = byPart.filter((row) => !shown.includes(row));
  const sum = (pick: (row: (typeof byPart)[number]) => number, list = rest) => list.reduce((total, row) => total + pick(row), 0);
  const baseCpu = median(rows.map((row) => row.base.cpuUsPerRequest));
  const measuredCpu = median(rows.map((row) => row.measured.cpuUsPerRequest));
  const body = shown.map((row) => [`\`${row.part}\``, fixed(row.base, 2), fixed(row.measured, 2), signed(row.added)]);
  body.push([`${rest.length} smaller parts`, fixed(sum((row) => row.base), 2), fixed(sum((row) => row.measured), 2), signed(sum((row) => row.added))]);
  body.push([`**CPU per ${unit} (median of the rounds)**`, fixed(baseCpu, 1), fixed(measuredCpu, 1), signed(measuredCpu - baseCpu)]);
  const perRound = rows.map((row, index) => [String(index + 1), fixed(row.base.cpuUsPerRequest, 1), fixed(row.measured.cpuUsPerRequest, 1), `${fixed(row.measured.cpuUsPerRequest / row.base.cpuUsPerRequest, 2)}×`, fixed(row.base.requestsPerSecond, 0), fixed(row.measured.requestsPerSecond, 0)]);
  const roundTable = table(['round', `${baseLabel} µs/${unit}`, `${measuredLabel} µs/${unit}`, `${measuredLabel} ÷ ${baseLabel}`, `${baseLabel} ${unit}s/s`, `${measuredLabel} ${unit}s/s`], perRound);
  return `## ${title[0]!.toUpperCase()}${title.slice(1)}\n\n### Rounds\n\n${roundTable}\n\n### By part (µs per ${unit}, medians of the rounds)\n\n${table(['part', baseLabel, measuredLabel, `${measuredLabel} − ${baseLabel}`], body)}\n`;
}

function median(values: readonly number[]): number {
  return spreadOf(values)?.median ?? 0;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)}`;
}
