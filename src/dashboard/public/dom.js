// Building DOM without a framework. Children are appended as nodes or text, never parsed as HTML,
// so names and emails from the API always render as text.
const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(el, props, children) {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name === 'className' ? 'class' : name, value === true ? '' : String(value));
  }
  el.append(...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));
  return el;
}

/** h('button', { class: 'primary', onclick }, 'Save') */
export function h(tag, props, ...children) {
  return fill(document.createElement(tag), props, children);
}

export function svg(tag, props, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), props, children);
}

export function replaceChildren(el, ...children) {
  el.replaceChildren();
  return fill(el, null, children);
}

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const numberFormat = new Intl.NumberFormat();

export const formatNumber = (n) => numberFormat.format(n);

/** An amount in micro-units of `currency` (e.g. USD), with up to its six decimals: small requests cost fractions of a cent. */
export function formatMicros(micros, currency) {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(micros / 1_000_000);
}

export function formatDate(ms) {
  return h('time', { datetime: new Date(ms).toISOString(), title: dateTimeFormat.format(ms) }, dateFormat.format(ms));
}

/** "3 minutes ago", with the exact time on hover. */
export function formatAgo(ms, now = Date.now()) {
  const seconds = Math.round((ms - now) / 1000);
  const [value, unit] = Math.abs(seconds) < 60 ? [seconds, 'second']
    : Math.abs(seconds) < 3600 ? [Math.round(seconds / 60), 'minute']
      : Math.abs(seconds) < 86400 ? [Math.round(seconds / 3600), 'hour'] : [Math.round(seconds / 86400), 'day'];
  return h('time', { datetime: new Date(ms).toISOString(), title: dateTimeFormat.format(ms) }, relative.format(value, unit));
}

/** Tells screen-reader users what just happened. */
export function announce(message) {
  const region = document.getElementById('announcer');
  region.textContent = '';
  setTimeout(() => { region.textContent = message; }, 50);
}
