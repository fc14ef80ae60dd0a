// The page a sign-up confirmation mail links to (/dashboard/verify#token=…). The token is in the
// fragment, so it never reaches a server log or a Referer header. The page shows the address the
// link confirms and asks for the new account's password: nothing happens until the person submits
// it, so a link someone else sent can neither switch a signed-in person to another account unseen
// nor make an account whose password someone else knows.
import { api } from './api.js';
import { h } from './dom.js';
import { alertBox, showFormError } from './widgets.js';

function linkProblem(error) {
  return [alertBox('error', error.message),
    h('p', { class: 'switch' }, h('a', { href: '/dashboard/sign-up', 'data-nav': true }, 'Sign up again'), ' or ',
      h('a', { href: '/dashboard/sign-in', 'data-nav': true }, 'sign in'))];
}

function passwordForm({ token, email, session, signedIn }) {
  const errors = h('div', { class: 'form-errors' });
  const submit = h('button', { type: 'submit', class: 'button primary wide' }, 'Create account and sign in');
  const form = h('form', { class: 'stack', novalidate: true },
    h('p', null, 'This link confirms ', h('strong', null, email), '. Choose the password of its new account.'),
    session ? alertBox('warning', `You are signed in as ${session.account.email}. Creating this account signs you out of that one in this browser.`) : null,
    h('div', { class: 'field' },
      h('label', { for: 'email' }, 'Email'),
      h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', value: email, readonly: true })),
    h('div', { class: 'field' },
      h('label', { for: 'password' }, 'Password'),
      h('input', {
        id: 'password', name: 'password', type: 'password', required: true, minlength: 10, maxlength: 128,
        autocomplete: 'new-password', 'aria-describedby': 'password-hint',
      }),
      h('p', { id: 'password-hint', class: 'hint' }, 'At least 10 characters. A passphrase of a few words works well.')),
    errors,
    submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      signedIn(await api.post('verify', { token, password: new FormData(form).get('password') }));
    } catch (error) {
      showFormError(form, errors, error);
      submit.disabled = false;
    }
  });
  return form;
}

export function renderVerify({ session, signedIn }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  history.replaceState(null, '', location.pathname);
  const status = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Checking the link…'));
  void api.post('verify/check', { token }).then(
    ({ email }) => status.replaceChildren(passwordForm({ token, email, session, signedIn })),
    (error) => status.replaceChildren(...linkProblem(error)));
  return h('section', { class: 'auth card' }, h('h1', { tabindex: -1 }, 'Confirm your email address'), status);
}
