// The page a sign-up confirmation mail links to (/dashboard/verify#token=…). The token is in the
// fragment, so it never reaches a server log or a Referer header; this page posts it once, which
// creates the account and signs it in.
import { api } from './api.js';
import { h } from './dom.js';
import { alertBox } from './widgets.js';

export function renderVerify({ signedIn }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  history.replaceState(null, '', location.pathname);
  const status = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Confirming your email address…'));
  void api.post('verify', { token }).then(signedIn, (error) => {
    status.replaceChildren(alertBox('error', error.message),
      h('p', { class: 'switch' }, h('a', { href: '/dashboard/sign-up', 'data-nav': true }, 'Sign up again'), ' or ',
        h('a', { href: '/dashboard/sign-in', 'data-nav': true }, 'sign in')));
  });
  return h('section', { class: 'auth card' }, h('h1', { tabindex: -1 }, 'Confirm your email address'), status);
}
