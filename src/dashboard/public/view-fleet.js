// Admins: usage and spend of the service over the last 30 days, per day (all accounts of the page or one) and
// per account, from the same counters as each account's own Usage page, a page of accounts at a
// time (the API answers one page: there may be very many accounts).
import { api } from './api.js';
import { formatMicros, formatNumber, h, replaceChildren } from './dom.js';
import { tile, usageChart } from './view-usage.js';
import { alertBox, pagePath, pager } from './widgets.js';

const COLUMNS = ['Account', 'Requests', 'Prompt tokens', 'Completion tokens', 'Spend'];

function accountsTable(accounts, rows, currency) {
  const totals = new Map();
  for (const row of rows) {
    const sum = totals.get(row.accountId) ?? { requests: 0, promptTokens: 0, completionTokens: 0, costMicros: 0 };
    sum.requests += row.requests;
    sum.promptTokens += row.promptTokens;
    sum.completionTokens += row.completionTokens;
    sum.costMicros += row.costMicros;
    totals.set(row.accountId, sum);
  }
  const used = accounts.filter((account) => totals.has(account.id)).sort((a, b) => totals.get(b.id).requests - totals.get(a.id).requests);
  if (used.length === 0) return h('p', { class: 'empty' }, 'No requests in the last 30 days.');
  const idle = accounts.length - used.length;
  return h('div', null,
    h('div', { class: 'table-wrap' }, h('table', { class: 'stacked fleet' },
      h('caption', { class: 'visually-hidden' }, 'Usage per account over the last 30 days, busiest first'),
      h('thead', null, h('tr', null, COLUMNS.map((label, i) => h('th', { scope: 'col', class: i > 0 ? 'num' : null }, label)))),
      h('tbody', null, used.map((account) => {
        const sum = totals.get(account.id);
        return h('tr', { 'data-account-id': account.id },
          h('th', { scope: 'row', 'data-label': COLUMNS[0] }, account.email),
          h('td', { class: 'num', 'data-label': COLUMNS[1] }, formatNumber(sum.requests)),
          h('td', { class: 'num', 'data-label': COLUMNS[2] }, formatNumber(sum.promptTokens)),
          h('td', { class: 'num', 'data-label': COLUMNS[3] }, formatNumber(sum.completionTokens)),
          h('td', { class: 'num', 'data-label': COLUMNS[4] }, formatMicros(sum.costMicros, currency)));
      })))),
    idle > 0 ? h('p', { class: 'muted' }, `${idle} other ${idle === 1 ? 'account' : 'accounts'} sent no requests.`) : null);
}

function controls(accounts, onChange) {
  const metric = h('fieldset', { class: 'segmented' }, h('legend', { class: 'visually-hidden' }, 'Show'),
    ['requests', 'tokens'].map((value, i) => h('label', null,
      h('input', { type: 'radio', name: 'metric', value, checked: i === 0, onchange: onChange }), value === 'requests' ? 'Requests' : 'Tokens')));
  const account = h('select', { id: 'fleet-account', name: 'account', onchange: onChange },
    h('option', { value: '' }, 'All accounts on this page'),
    accounts.map((a) => h('option', { value: a.id }, a.email)));
  return h('form', { class: 'chart-controls', onsubmit: (e) => e.preventDefault() }, metric,
    h('div', { class: 'field inline' }, h('label', { for: 'fleet-account' }, 'Account'), account));
}

export function renderFleetUsage() {
  const body = h('div', { class: 'stack-lg', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading usage…'));

  async function load(offset = 0) {
    try {
      const { days, accounts, rows, currency, total, pageSize } = await api.get(pagePath('admin/usage', offset));
      const chartSlot = h('div', { class: 'chart-slot' });
      const form = controls(accounts, draw);
      function draw() {
        const data = new FormData(form);
        const accountId = data.get('account');
        replaceChildren(chartSlot, usageChart(days, rows.filter((row) => !accountId || row.accountId === accountId), data.get('metric')));
      }
      draw();
      const sum = (pick) => rows.reduce((total, row) => total + pick(row), 0);
      body.removeAttribute('aria-busy');
      replaceChildren(body,
        pager({ offset, pageSize, total, noun: 'Accounts', onPage: (next) => load(next), labels: ['Earlier', 'Later'] }),
        h('div', { class: 'tiles' },
          tile('Requests', formatNumber(sum((r) => r.requests))),
          tile('Prompt tokens', formatNumber(sum((r) => r.promptTokens))),
          tile('Completion tokens', formatNumber(sum((r) => r.completionTokens))),
          tile('Spend', formatMicros(sum((r) => r.costMicros), currency))),
        h('section', { class: 'card', 'aria-labelledby': 'fleet-chart-title' },
          h('div', { class: 'card-head' }, h('h2', { id: 'fleet-chart-title' }, 'Per day'), form), chartSlot),
        h('section', { class: 'card', 'aria-labelledby': 'fleet-table-title' }, h('h2', { id: 'fleet-table-title' }, 'Per account'), accountsTable(accounts, rows, currency)));
    } catch (error) {
      replaceChildren(body, alertBox('error', error.message));
    }
  }

  void load();
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Service usage'),
      h('p', { class: 'muted' }, 'Requests, tokens and spend per day over the last 30 days (UTC) for the accounts on this Munja, a page of accounts at a time, oldest first.')),
    body);
}
