// Admins: every account, with suspend and resume (a suspended account's keys get 403 at once; the
// account can still sign in and see why), and invite links for invite-only sign-up.
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

  void load();
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Accounts'),
      h('p', { class: 'muted' }, 'Every account on this Munja. Operators grant admin with ', h('code', null, 'munja accounts admin EMAIL'), '.')),
    h('section', { class: 'card', 'aria-labelledby': 'invite-title' },
      h('h2', { id: 'invite-title' }, 'Invite someone'),
      h('button', { type: 'button', class: 'button', onclick: invite }, 'Create an invite link'), invites),
    h('section', { class: 'card' }, list));
}
