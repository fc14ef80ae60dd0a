// A bar chart in SVG, one bar per day, stacked when there are several series (prompt and
// completion tokens). The axis goes up in round steps (1, 2 or 5 × a power of ten). Colours come
// from style.css; every bar has a tooltip, and the table next to the chart carries the same
// numbers for screen readers.
import { formatNumber, h, svg } from './dom.js';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 60 };
const MAX_STEPS = 5;

/** The axis: a whole, round step (1, 2 or 5 × 10^k) and the top, at most MAX_STEPS steps up. */
export function axisSteps(peak) {
  let step = 1;
  for (let power = 1; ; power *= 10) {
    const found = [1, 2, 5].map((m) => m * power).find((candidate) => candidate * MAX_STEPS >= peak);
    if (found !== undefined) {
      step = found;
      break;
    }
  }
  const steps = Math.max(1, Math.ceil(peak / step));
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}

/**
 * days: YYYY-MM-DD[]; series: [{ name, className, values: number[] (one per day) }], stacked
 * from the first (bottom) to the last; label: what the numbers count.
 */
export function barChart({ days, series, label }) {
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + s.values[i], 0));
  const ticks = axisSteps(Math.max(...totals));
  const max = ticks.at(-1);
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerW / days.length;
  const y = (v) => PAD.top + innerH - (v / max) * innerH;

  const grid = ticks.map((v) => [
    svg('line', { class: 'grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }),
    svg('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, formatNumber(v)),
  ]);
  const bars = days.map((day, i) => {
    let base = 0;
    const parts = series.map((s) => {
      const v = s.values[i];
      const top = y(base + v);
      const height = y(base) - top;
      base += v;
      const detail = series.length > 1 ? `${formatNumber(v)} ${s.name} of ${formatNumber(totals[i])} ${label}` : `${formatNumber(v)} ${label}`;
      return v === 0 ? null : svg('rect', {
        class: `bar ${s.className ?? ''}`, x: PAD.left + i * slot + slot * 0.15, y: top,
        width: slot * 0.7, height: Math.max(height, 1), 'data-day': day, 'data-value': v, 'data-series': s.name,
      }, svg('title', null, `${day}: ${detail}`));
    });
    return svg('g', { 'data-day': day, 'data-total': totals[i] }, parts);
  });
  const dayTicks = days.map((day, i) => (i % 5 === days.length % 5 || i === days.length - 1
    ? svg('text', { class: 'axis', x: PAD.left + i * slot + slot / 2, y: HEIGHT - 8, 'text-anchor': 'middle' }, day.slice(5))
    : null));

  const total = totals.reduce((a, b) => a + b, 0);
  const chart = svg('svg', {
    class: 'chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img',
    'aria-label': `${label} per day, ${days[0]} to ${days.at(-1)}: ${formatNumber(total)} in total`,
  }, grid, bars, dayTicks);
  if (series.length === 1) return chart;
  const legend = h('ul', { class: 'legend' }, series.map((s) => h('li', null, h('span', { class: `swatch ${s.className ?? ''}`, 'aria-hidden': 'true' }), s.name)));
  return h('figure', { class: 'chart-figure' }, chart, legend);
}
