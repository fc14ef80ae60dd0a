// A bar chart in SVG, one bar per day. Colours come from style.css; every bar has a tooltip, and
// the table next to the chart carries the same numbers for screen readers.
import { formatNumber, svg } from './dom.js';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 52 };

/** Rounds up to 1, 2 or 5 × a power of ten, so axis labels are round numbers. */
function niceMax(value) {
  if (value <= 0) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) * power;
  return Math.max(step, 4);
}

/** days: YYYY-MM-DD[], values: number[] (same length). */
export function barChart({ days, values, label }) {
  const max = niceMax(Math.max(...values));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerW / days.length;
  const total = values.reduce((a, b) => a + b, 0);
  const y = (v) => PAD.top + innerH - (v / max) * innerH;

  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = Math.round(max * f);
    return [
      svg('line', { class: 'grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v) }),
      svg('text', { class: 'axis', x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, formatNumber(v)),
    ];
  });
  const bars = days.map((day, i) => {
    const v = values[i];
    const height = Math.max((v / max) * innerH, v > 0 ? 2 : 0);
    return svg('rect', {
      class: 'bar', x: PAD.left + i * slot + slot * 0.15, y: PAD.top + innerH - height,
      width: slot * 0.7, height, rx: 2, 'data-day': day, 'data-value': v,
    }, svg('title', null, `${day}: ${formatNumber(v)} ${label}`));
  });
  const ticks = days.map((day, i) => (i % 5 === days.length % 5 || i === days.length - 1
    ? svg('text', { class: 'axis', x: PAD.left + i * slot + slot / 2, y: HEIGHT - 8, 'text-anchor': 'middle' }, day.slice(5))
    : null));

  return svg('svg', {
    class: 'chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img',
    'aria-label': `${label} per day, ${days[0]} to ${days.at(-1)}: ${formatNumber(total)} in total`,
  }, grid, bars, ticks);
}
