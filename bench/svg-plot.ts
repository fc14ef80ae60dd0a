// A small line-chart writer: SVG text with axes, ticks, a legend and one polyline per series, on
// linear or log scales. Enough for the bench's plots without a plotting dependency.

export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface Tick {
  readonly value: number;
  readonly label: string;
}

export interface Chart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xLog?: boolean;
  readonly yLog?: boolean;
  readonly xTicks: readonly Tick[];
  /** Default: 5 ticks (linear) or powers of ten (log) over the data. */
  readonly yTicks?: readonly Tick[];
  readonly series: readonly Series[];
  readonly note?: string;
}

const WIDTH = 880;
const HEIGHT = 440;
const MARGIN = { left: 78, right: 290, top: 46, bottom: 62 };
const COLORS = ['#555555', '#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const fmt = (value: number) => String(Number(value.toPrecision(3)));

function scale(min: number, max: number, log: boolean, from: number, to: number): (value: number) => number {
  const f = log ? Math.log10 : (value: number) => value;
  const lo = f(min);
  const span = f(max) - lo || 1;
  return (value) => from + ((f(value) - lo) / span) * (to - from);
}

export function defaultTicks(min: number, max: number, log: boolean): Tick[] {
  if (log) {
    const ticks: Tick[] = [];
    for (let exponent = Math.floor(Math.log10(min)); exponent <= Math.ceil(Math.log10(max)); exponent++) {
      const value = 10 ** exponent;
      ticks.push({ value, label: value >= 1 ? value.toLocaleString('en-US') : fmt(value) });
    }
    return ticks;
  }
  const step = niceStep((max - min) / 5);
  const ticks: Tick[] = [];
  for (let value = Math.floor(min / step) * step; value <= max + step / 2; value += step) ticks.push({ value, label: value.toLocaleString('en-US') });
  return ticks;
}

function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

export function lineChart(chart: Chart): string {
  const points = chart.series.flatMap((series) => series.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!chart.yLog || y > 0));
  const ys = points.map(([, y]) => y);
  const yMin = chart.yLog ? Math.min(...ys) : Math.min(0, ...ys);
  const yTicks = chart.yTicks ?? defaultTicks(yMin, Math.max(...ys, yMin + 1e-9), chart.yLog === true);
  const yLo = Math.min(yTicks[0]?.value ?? yMin, yMin);
  const yHi = Math.max(yTicks.at(-1)?.value ?? 1, ...ys);
  const xLo = chart.xTicks[0]!.value;
  const xHi = chart.xTicks.at(-1)!.value;
  const plotRight = WIDTH - MARGIN.right;
  const plotBottom = HEIGHT - MARGIN.bottom;
  const x = scale(xLo, xHi, chart.xLog === true, MARGIN.left, plotRight);
  const y = scale(yLo, yHi, chart.yLog === true, plotBottom, MARGIN.top);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (const tick of chart.xTicks) {
    const at = x(tick.value).toFixed(1);
    out.push(`<line x1="${at}" y1="${MARGIN.top}" x2="${at}" y2="${plotBottom}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${at}" y="${plotBottom + 18}" text-anchor="middle">${escape(tick.label)}</text>`);
  }
  for (const tick of yTicks) {
    if (tick.value < yLo || tick.value > yHi) continue;
    const at = y(tick.value).toFixed(1);
    out.push(`<line x1="${MARGIN.left}" y1="${at}" x2="${plotRight}" y2="${at}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${at}" text-anchor="end" dominant-baseline="middle">${escape(tick.label)}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotRight - MARGIN.left}" height="${plotBottom - MARGIN.top}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${(MARGIN.left + plotRight) / 2}" y="${HEIGHT - 22}" text-anchor="middle">${escape(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${(MARGIN.top + plotBottom) / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`);
  chart.series.forEach((series, index) => {
    const color = COLORS[index % COLORS.length]!;
    const path = series.points
      .filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py) && (!chart.yLog || py > 0))
      .map(([px, py]) => `${x(px).toFixed(1)},${y(Math.min(py, yHi)).toFixed(1)}`);
    if (path.length > 0) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${path.join(' ')}"/>`);
    if (path.length < 12) for (const point of path) out.push(`<circle cx="${point.split(',')[0]}" cy="${point.split(',')[1]}" r="3" fill="${color}"/>`);
    const legendY = MARGIN.top + 8 + index * 20;
    out.push(`<line x1="${plotRight + 14}" y1="${legendY}" x2="${plotRight + 36}" y2="${legendY}" stroke="${color}" stroke-width="3"/>`);
    out.push(`<text x="${plotRight + 42}" y="${legendY}" dominant-baseline="middle">${escape(series.name)}</text>`);
  });
  if (chart.note !== undefined) out.push(`<text x="${MARGIN.left}" y="${HEIGHT - 6}" font-size="10" fill="#666666">${escape(chart.note)}</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
