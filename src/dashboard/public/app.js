// The dashboard's entry point: one page shell, one view per path, rendered from the API's answers.
// Links marked data-nav change the view without reloading; the back button works.
import { ApiError, api, setCsrfToken } from './api.js';
import { announce, h, replaceChildren } from './dom.js';
import { plainHttpNotice } from './plain-http-notice.js';
import { renderAccount } from './view-account.js';
import { renderAdmin } from './view-admin.js';
import { renderFleetUsage } from './view-fleet.js';
import { renderKeys } from './view-keys.js';
import { renderQuickstart } from './view-quickstart.js';
import { renderSignIn } from './view-sign-in.js';
import { renderUsage } from './view-usage.js';
import { renderVerify } from './view-verify.js';

const VIEWS = {
  keys: { title: 'API keys', render: renderKeys },
  usage: { title: 'Usage', render: renderUsage },
  quickstart: { title: 'Quickstart', render: renderQuickstart },
  account: { title: 'Account', render: renderAccount },
  admin: { title: 'Accounts', render: renderAdmin, adminOnly: true },
  'service-usage': { title: 'Service usage', render: renderFleetUsage, adminOnly: true },
};
const PUBLIC_VIEWS = { 'sign-in': 'Sign in', 'sign-up': 'Create an account', verify: 'Confirm your email' };

let session = null;
// Whether `session` reflects the server (asked /me, or just signed in or out).
let sessionKnown = false;

function pageName() {
  return location.pathname.replace(/^\/dashboard\/?/, '') || 'keys';
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  void route();
}

function signedIn(answer) {
  session = answer;
  sessionKnown = true;
  setCsrfToken(answer.csrfToken);
  navigate('/dashboard/keys');
}

async function signOut() {
  try {
    await api.post('sign-out');
  } finally {
    session = null;
    sessionKnown = true;
    setCsrfToken('');
    navigate('/dashboard/sign-in');
    announce('You are signed out.');
  }
}

function renderNav(page) {
  const nav = document.getElementById('nav');
  if (session === null) return replaceChildren(nav);
  const link = (name, label) => h('a', { href: `/dashboard/${name}`, 'data-nav': true, 'aria-current': name === page ? 'page' : null }, label);
  replaceChildren(nav,
    h('ul', { class: 'nav-links' },
      Object.entries(VIEWS)
        .filter(([, view]) => !view.adminOnly || session.account.isAdmin)
        .map(([name, view]) => h('li', null, link(name, view.title)))),
    h('div', { class: 'nav-account' },
      h('span', { class: 'email', title: 'Signed in as' }, session.account.email),
      h('button', { type: 'button', class: 'button small', onclick: signOut }, 'Sign out')));
}

async function loadSession() {
  sessionKnown = true;
  try {
    session = await api.get('me');
    setCsrfToken(session.csrfToken);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    session = null;
  }
}

async function route() {
  const main = document.getElementById('main');
  const page = pageName();
  try {
    if (!sessionKnown) await loadSession();
    if (page in PUBLIC_VIEWS) {
      // A confirmation link opens its page even when signed in: that page says what it would change.
      if (session !== null && page !== 'verify') return navigate('/dashboard/keys', { replace: true });
      renderNav(page);
      document.title = `${PUBLIC_VIEWS[page]} · Munja`;
      replaceChildren(main, page === 'verify' ? renderVerify({ session, signedIn }) : renderSignIn({ mode: page, signedIn, navigate }));
    } else if (session === null) {
      return navigate('/dashboard/sign-in', { replace: true });
    } else {
      const view = VIEWS[page] && (!VIEWS[page].adminOnly || session.account.isAdmin) ? VIEWS[page] : null;
      renderNav(page);
      document.title = `${view?.title ?? 'Not found'} · Munja`;
      replaceChildren(main, view ? view.render({ session, navigate }) : h('h1', null, 'There is no such page'));
    }
  } catch (error) {
    replaceChildren(main, h('h1', null, 'Something went wrong'), h('p', null, error.message));
  }
  main.querySelector('h1')?.focus();
}

document.addEventListener('click', (event) => {
  const link = event.target.closest?.('a[data-nav]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  if (link.pathname !== location.pathname) navigate(link.pathname);
});
window.addEventListener('popstate', () => { void route(); });
const notice = plainHttpNotice();
if (notice !== null) document.getElementById('main').before(notice);
void route();
