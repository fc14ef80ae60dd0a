// Requests, tokens and spend per day per key for the last 30 days: a chart (requests or tokens, all
// keys or one) and the table of the days with usage, per key and model, for one page of keys at a
// time (newest first).
import { api } from './api.js';
import { formatMicros, formatNumber, h, replaceChildren } from './dom.js';
import { barChart } from './chart.js';
import { alertBox, pagePath, pager, suspendedNotice } from './widgets.js';

/** A tile with its value already formatted. */
export function tile(label, text) {
  return h('div', { class: 'tile' }, h('div', { class: 'tile-label' }, label), h('div', { class: 'tile-value' }, text));
}

function usageTable(rows, keyName, currency) {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No requests in the last 30 days. Usage appears here a second or two after each request.');
  const sorted = rows.slice().sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : 0));
  const columns = ['Day (UTC)', 'Key', 'Model', 'Requests', 'Prompt tokens', 'Completion tokens', 'Spend'];
  const cell = (i, text) => h('td', { class: i >= 3 ? 'num' : null, 'data-label': columns[i] }, text);
  return h('div', { class: 'table-wrap' }, h('table', { class: 'usage stacked' },
    h('caption', { class: 'visually-hidden' }, 'Usage per day, key and model, newest first'),
    h('thead', null, h('tr', null, columns.map((label, i) => h('th', { scope: 'col', class: i >= 3 ? 'num' : null }, label)))),
    h('tbody', null, sorted.map((row) => h('tr', null,
      cell(0, row.day), cell(1, keyName(row.keyId)), cell(2, row.model || '–'),
      cell(3, formatNumber(row.requests)), cell(4, formatNumber(row.promptTokens)), cell(5, formatNumber(row.completionTokens)),
      cell(6, formatMicros(row.costMicros, currency)))))));
}

/** Requests per day, or tokens per day with prompt and completion stacked. */
export function usageChart(days, rows, metric) {
  const perDay = (pick) => {
    const sums = new Map(days.map((day) => [day, 0]));
    for (const row of rows) sums.set(row.day, (sums.get(row.day) ?? 0) + pick(row));
    return days.map((day) => sums.get(day));
  };
  const series = metric === 'requests'
    ? [{ name: 'requests', values: perDay((row) => row.requests) }]
    : [
      { name: 'prompt tokens', values: perDay((row) => row.promptTokens) },
      { name: 'completion tokens', className: 'second', values: perDay((row) => row.completionTokens) },
    ];
  return barChart({ days, series, label: metric });
}

function controls(keys, onChange) {
  const metric = h('fieldset', { class: 'segmented' }, h('legend', { class: 'visually-hidden' }, 'Show'),
    ['requests', 'tokens'].map((value, i) => h('label', null,
      h('input', { type: 'radio', name: 'metric', value, checked: i === 0, onchange: onChange }), value === 'requests' ? 'Requests' : 'Tokens')));
  const key = h('select', { id: 'usage-key', name: 'key', onchange: onChange },
    h('option', { value: '' }, 'All keys'),
    keys.map((k) => h('option', { value: k.id }, `${k.name} (${k.prefix}…${k.lastFour})${k.revokedAt ? ' – revoked' : ''}`)));
  return h('form', { class: 'chart-controls', onsubmit: (e) => e.preventDefault() }, metric,
    h('div', { class: 'field inline' }, h('label', { for: 'usage-key' }, 'Key'), key));
}

export function renderUsage({ session }) {
  const body = h('div', { class: 'stack-lg', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading usage…'));

  async function load(offset = 0) {
    try {
      const { days, keys, rows, currency, total, pageSize } = await api.get(pagePath('usage', offset));
      const names = new Map(keys.map((k) => [k.id, `${k.name} (…${k.lastFour})`]));
      const keyName = (id) => names.get(id) ?? id;
      const chartSlot = h('div', { class: 'chart-slot' });
      const form = controls(keys, draw);
      function draw() {
        const data = new FormData(form);
        const keyId = data.get('key');
        replaceChildren(chartSlot, usageChart(days, rows.filter((row) => !keyId || row.keyId === keyId), data.get('metric')));
      }
      draw();
      const sum = (pick) => rows.reduce((total, row) => total + pick(row), 0);
      body.removeAttribute('aria-busy');
      replaceChildren(body,
        pager({ offset, pageSize, total, noun: 'Keys', onPage: (next) => load(next) }),
        h('div', { class: 'tiles' },
          tile('Requests', formatNumber(sum((r) => r.requests))),
          tile('Prompt tokens', formatNumber(sum((r) => r.promptTokens))),
          tile('Completion tokens', formatNumber(sum((r) => r.completionTokens))),
          tile('Spend', formatMicros(sum((r) => r.costMicros), currency))),
        h('section', { class: 'card', 'aria-labelledby': 'chart-title' },
          h('div', { class: 'card-head' }, h('h2', { id: 'chart-title' }, 'Per day'), form), chartSlot),
        h('section', { class: 'card', 'aria-labelledby': 'table-title' }, h('h2', { id: 'table-title' }, 'Details'), usageTable(rows, keyName, currency)));
    } catch (error) {
      replaceChildren(body, alertBox('error', error.message));
    }
  }

  void load();
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Usage'),
      h('p', { class: 'muted' }, 'Requests, tokens and spend per day over the last 30 days (UTC), from the same counters the API writes.')),
    suspendedNotice(session),
    body);
}
