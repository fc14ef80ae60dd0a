// API keys: create one (key-form.js), list them a page at a time, newest first (prefix and last
// four only), revoke with a confirmation. A revoked key is refused by the API within a second.
import { api } from './api.js';
import { announce, formatAgo, formatDate, h, replaceChildren } from './dom.js';
import { keyForm } from './key-form.js';
import { alertBox, confirmDialog, pagePath, pager, suspendedNotice } from './widgets.js';

function statusBadge(key) {
  if (key.revokedAt !== null) return h('span', { class: 'badge muted', title: new Date(key.revokedAt).toLocaleString() }, 'Revoked');
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) {
    return h('span', { class: 'badge muted', title: new Date(key.expiresAt).toLocaleString() }, 'Expired');
  }
  return h('span', { class: 'badge ok' }, 'Active');
}

/** What the operator set on the key (read-only here): its expiry, priority and cache setting. */
function settingsNote(key) {
  const notes = [];
  if (key.expiresAt !== null && key.expiresAt > Date.now()) notes.push(`expires ${formatDate(key.expiresAt)}`);
  if (key.priority !== null) notes.push(`priority ${key.priority}`);
  if (key.cache !== null) notes.push(`cache ${key.cache}`);
  return notes.length === 0 ? null : h('p', { class: 'hint' }, notes.join(' · '));
}

const COLUMNS = ['Name', 'Key', 'Models', 'RPM', 'Created', 'Last used', 'Status', 'Budget', ''];

const PERIODS = { day: 'today', month: 'this month', total: 'in total' };

/** Spent of the tighter budget (the key's or its account's), with what is left and reserved on hover. */
function budgetCell(budget) {
  if (budget == null) return h('span', { class: 'muted' }, 'None');
  const whose = budget.scope === 'account' ? 'Account budget' : 'Key budget';
  const renews = budget.renewsAt === null ? '' : `; renews ${new Date(budget.renewsAt).toLocaleString()}`;
  return h('span', { title: `${whose}: ${budget.left} ${budget.currency} left, ${budget.reserved} reserved by requests in flight${renews}` },
    `${budget.spent} / ${budget.limit} ${budget.currency} ${PERIODS[budget.period]}`);
}

function keyRow(key, onRevoke) {
  const revoke = key.revokedAt === null
    ? h('button', { type: 'button', class: 'button small danger', onclick: () => onRevoke(key), 'aria-label': `Revoke ${key.name}` }, 'Revoke')
    : null;
  // data-label: the column's name, shown beside each cell where a phone stacks the table.
  return h('tr', { 'data-key-id': key.id, class: key.revokedAt === null ? null : 'revoked' },
    h('th', { scope: 'row', 'data-label': COLUMNS[0] }, key.name || '(no name)'),
    h('td', { 'data-label': COLUMNS[1] }, h('code', { class: 'key-mask' }, `${key.prefix}…${key.lastFour}`)),
    h('td', { 'data-label': COLUMNS[2] }, key.models === null ? h('span', { class: 'muted' }, 'All') : key.models.join(', ')),
    h('td', { class: 'num', 'data-label': COLUMNS[3] }, key.limits.rpm ?? h('span', { class: 'muted' }, 'default')),
    h('td', { 'data-label': COLUMNS[4] }, formatDate(key.createdAt)),
    h('td', { 'data-label': COLUMNS[5] }, key.lastUsedAt === null ? h('span', { class: 'muted' }, 'Never') : formatAgo(key.lastUsedAt)),
    h('td', { 'data-label': COLUMNS[6] }, statusBadge(key), settingsNote(key)),
    h('td', { 'data-label': COLUMNS[7] }, budgetCell(key.budget)),
    h('td', { class: 'actions-cell' }, revoke));
}

export function renderKeys({ session }) {
  const list = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading keys…'));
  let offset = 0;

  async function revoke(key) {
    const confirmed = await confirmDialog({
      title: `Revoke “${key.name}”?`,
      message: `Requests with ${key.prefix}…${key.lastFour} will be refused with 401 within a second. This cannot be undone.`,
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!confirmed) return;
    try {
      await api.post('keys/revoke', { id: key.id });
      announce(`Key ${key.name} revoked.`);
    } catch (error) {
      list.prepend(alertBox('error', error.message));
    }
    await load();
  }

  async function load(page = offset) {
    try {
      const { keys, total, pageSize } = await api.get(pagePath('keys', page));
      offset = page;
      const rows = keys.map((key) => keyRow(key, revoke));
      replaceChildren(list, total === 0
        ? h('p', { class: 'empty' }, 'No keys yet. Create one above, then see the Quickstart.')
        : h('div', { class: 'table-wrap' }, h('table', { class: 'keys stacked' },
          h('caption', { class: 'visually-hidden' }, 'Your API keys, newest first'),
          h('thead', null, h('tr', null, COLUMNS.map((label) => h('th', { scope: 'col' }, label)))),
          h('tbody', null, rows))),
        pager({ offset, pageSize, total, noun: 'Keys', onPage: (next) => load(next) }));
    } catch (error) {
      replaceChildren(list, alertBox('error', error.message));
    }
  }

  void load();
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'API keys'),
      h('p', { class: 'muted' }, `Keys authenticate calls to the API. Keep them in server-side code only. An account may have ${session.maxKeys} keys that are not revoked, and its keys share one quota.`)),
    suspendedNotice(session),
    keyForm(session, { onCreated: () => load(0) }),
    h('section', { class: 'card', 'aria-labelledby': 'keys-title' }, h('h2', { id: 'keys-title' }, 'Your keys'), list));
}
