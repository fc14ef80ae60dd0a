// The report's plots, written as SVG under docs/bench/: latency distribution at the first paced
// rate (percentile curve per target) and throughput against connections.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFleetPlot } from './fleet/fleet-report.ts';
import type { Results } from './report.ts';
import { NINES, percentileCurve } from './percentile-curve.ts';
import { lineChart, type Series } from './svg-plot.ts';

export interface Plot {
  readonly title: string;
  /** Relative to the repository root. */
  readonly path: string;
}

export function writePlots(results: Results, directory: string): Plot[] {
  const plots: Plot[] = [];
  const measured = results.targets.filter((run) => run.skipped === undefined);
  const rate = measured.find((run) => run.paced.length > 0)?.paced[0]?.rate;
  if (rate !== undefined) {
    const series: Series[] = measured.flatMap((run) => {
      const paced = run.paced.find((result) => result.rate === rate);
      if (paced === undefined || paced.latencySamples.length === 0) return [];
      return [{ name: `${run.label}${paced.gaveUp === undefined ? '' : ' (fell behind)'}`, points: percentileCurve(paced.latencySamples) }];
    });
    const file = 'latency-distribution.svg';
    writeFileSync(join(directory, file), lineChart({
      title: `Latency at ${rate.toLocaleString('en-US')} req/s paced (non-streaming chat)`,
      xLabel: 'percentile',
      yLabel: 'latency from the scheduled send, ms (log)',
      xLog: true,
      yLog: true,
      xTicks: NINES,
      series,
      note: 'Open loop: sends at fixed times, latency counted from the scheduled time. Mock + generator on CPU 0, proxy alone on CPU 1.',
    }));
    plots.push({ title: 'Latency distribution', path: `docs/bench/${file}` });
  }
  const sweeps = measured.filter((run) => run.sweep.length > 0);
  if (sweeps.length > 0) {
    const connections = [...new Set(sweeps.flatMap((run) => run.sweep.map((result) => result.connections)))].sort((a, b) => a - b);
    const file = 'throughput-vs-connections.svg';
    writeFileSync(join(directory, file), lineChart({
      title: 'Throughput against connections (non-streaming chat)',
      xLabel: 'connections (closed loop, keep-alive)',
      yLabel: 'requests per second',
      xLog: true,
      xTicks: connections.map((value) => ({ value, label: String(value) })),
      series: sweeps.map((run) => ({ name: run.label, points: run.sweep.map((result) => [result.connections, result.load.requestsPerSecond] as const) })),
      note: 'Mock upstream + load generator on CPU 0, proxy alone on CPU 1.',
    }));
    plots.push({ title: 'Throughput against connections', path: `docs/bench/${file}` });
  }
  if (results.engineFleet !== undefined) plots.push(writeFleetPlot(results.engineFleet, directory));
  return plots;
}
