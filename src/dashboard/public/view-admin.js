// Admins: every account, with suspend and resume (a suspended account's keys get 403 at once; the
// account can still sign in and see why), invite links for invite-only sign-up, admin keys for the
// admin API, and the audit log.
import { api } from './api.js';
import { announce, formatDate, h, replaceChildren } from './dom.js';
import { alertBox, codeBlock, confirmDialog, pagePath, pager } from './widgets.js';

function accountRow(account, self, onToggle) {
  const active = account.status === 'active';
  const action = account.id === self
    ? h('span', { class: 'muted' }, 'You')
    : h('button', {
      type: 'button', class: `button small ${active ? 'danger' : ''}`, onclick: () => onToggle(account),
      'aria-label': `${active ? 'Suspend' : 'Resume'} ${account.email}`,
    }, active ? 'Suspend' : 'Resume');
  return h('tr', { 'data-account-id': account.id },
    h('th', { scope: 'row' }, account.email),
    h('td', null, h('span', { class: `badge ${active ? 'ok' : 'warn'}` }, active ? 'Active' : 'Suspended')),
    h('td', null, account.isAdmin ? 'Admin' : ''),
    h('td', { class: 'num' }, String(account.activeKeys)),
    h('td', null, formatDate(account.createdAt)),
    h('td', { class: 'actions-cell' }, action));
}

export function renderAdmin({ session }) {
  const list = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading accounts…'));
  let offset = 0;

  async function toggle(account) {
    const suspend = account.status === 'active';
    if (suspend && !await confirmDialog({
      title: `Suspend ${account.email}?`,
      message: 'Its keys will be refused with 403 at once, until you resume the account. It can still sign in.',
      confirmLabel: 'Suspend account',
      danger: true,
    })) return;
    try {
      await api.post('admin/accounts/status', { id: account.id, status: suspend ? 'suspended' : 'active' });
      announce(`${account.email} ${suspend ? 'suspended' : 'resumed'}.`);
    } catch (error) {
      list.prepend(alertBox('error', error.message));
    }
    await load();
  }

  async function load(page = offset) {
    try {
      const { accounts, total, pageSize } = await api.get(pagePath('admin/accounts', page));
      offset = page;
      replaceChildren(list, h('div', { class: 'table-wrap' }, h('table', null,
        h('caption', { class: 'visually-hidden' }, 'All accounts, oldest first'),
        h('thead', null, h('tr', null, ['Email', 'Status', 'Role', 'Active keys', 'Created', ''].map((label) => h('th', { scope: 'col' }, label)))),
        h('tbody', null, accounts.map((account) => accountRow(account, session.account.id, toggle))))),
      pager({ offset, pageSize, total, noun: 'Accounts', onPage: (next) => load(next), labels: ['Earlier', 'Later'] }));
    } catch (error) {
      replaceChildren(list, alertBox('error', error.message));
    }
  }

  const invites = h('div', { 'aria-live': 'polite' });
  async function invite() {
    try {
      const { invite: code, expiresAt } = await api.post('admin/invites');
      invites.replaceChildren(
        h('p', null, `A link that creates one account, until ${formatDate(expiresAt)}. It is shown only now:`),
        codeBlock(`${location.origin}/dashboard/sign-up#invite=${code}`, 'Copy invite link'));
    } catch (error) {
      invites.replaceChildren(alertBox('error', error.message));
    }
  }

  const adminKey = h('div', { 'aria-live': 'polite' });
  const keyName = h('input', { id: 'admin-key-name', name: 'name', required: true, maxlength: 64, value: 'automation' });
  async function createAdminKey(event) {
    event.preventDefault();
    try {
      const { key } = await api.post('admin/keys', { name: keyName.value });
      adminKey.replaceChildren(
        h('p', null, 'An admin key: it works on the admin API (/v1/admin/…) only. It is shown only now:'),
        codeBlock(key, 'Copy admin key'));
      await loadAudit();
    } catch (error) {
      adminKey.replaceChildren(alertBox('error', error.message));
    }
  }

  const audit = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Loading the audit log…'));
  async function loadAudit(before) {
    try {
      const { entries, hasMore } = await api.get(before === undefined ? 'admin/audit' : `admin/audit/before/${before}`);
      const last = entries.at(-1);
      replaceChildren(audit, h('div', { class: 'table-wrap' }, h('table', null,
        h('caption', { class: 'visually-hidden' }, 'Audit log, newest first'),
        h('thead', null, h('tr', null, ['Time', 'Actor', 'Address', 'Action', 'Target', 'Changed'].map((label) => h('th', { scope: 'col' }, label)))),
        h('tbody', null, entries.map((entry) => h('tr', null,
          h('td', null, formatDate(entry.at)), h('td', null, entry.actor), h('td', null, entry.address ?? '—'),
          h('th', { scope: 'row' }, entry.action), h('td', null, entry.target || '—'), h('td', null, h('code', null, JSON.stringify(entry.fields)))))))),
      h('div', { class: 'actions' },
        before === undefined ? null : h('button', { type: 'button', class: 'button small', onclick: () => loadAudit() }, 'Newest'),
        hasMore && last ? h('button', { type: 'button', class: 'button small', onclick: () => loadAudit(last.id) }, 'Older') : null));
    } catch (error) {
      replaceChildren(audit, alertBox('error', error.message));
    }
  }

  void load();
  void loadAudit();
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Accounts'),
      h('p', { class: 'muted' }, 'Every account on this Munja. Operators grant admin with ', h('code', null, 'munja accounts admin EMAIL'), '.')),
    h('section', { class: 'card', 'aria-labelledby': 'invite-title' },
      h('h2', { id: 'invite-title' }, 'Invite someone'),
      h('button', { type: 'button', class: 'button', onclick: invite }, 'Create an invite link'), invites),
    h('section', { class: 'card' }, list),
    h('section', { class: 'card', 'aria-labelledby': 'admin-key-title' },
      h('h2', { id: 'admin-key-title' }, 'Admin keys'),
      h('p', { class: 'muted' }, 'For scripts and CI: a key for the admin API only, refused on the model endpoints.'),
      h('form', { onsubmit: createAdminKey },
        h('label', { for: 'admin-key-name' }, 'Name'), keyName,
        h('button', { type: 'submit', class: 'button' }, 'Create an admin key')),
      adminKey),
    h('section', { class: 'card', 'aria-labelledby': 'audit-title' },
      h('h2', { id: 'audit-title' }, 'Audit log'),
      h('p', { class: 'muted' }, 'Every change to accounts and keys, from the admin API, this dashboard and the CLI.'),
      audit));
}
