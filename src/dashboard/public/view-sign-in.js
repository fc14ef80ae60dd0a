// Sign in and sign up: one form, two modes. Errors are shown as the API words them; a wrong
// password and an unknown email read the same. Sign-up sends the invite of an invite link
// (/dashboard/sign-up#invite=…). Where the operator asks for a confirmed email address, sign-up
// takes the address only: the password is chosen on the page the mailed link opens.
import { api } from './api.js';
import { h } from './dom.js';
import { alertBox, showFormError } from './widgets.js';

export function renderSignIn({ mode, signedIn }) {
  const signingUp = mode === 'sign-up';
  const invite = signingUp ? new URLSearchParams(location.hash.slice(1)).get('invite') : null;
  const errors = h('div', { class: 'form-errors' });
  const submit = h('button', { type: 'submit', class: 'button primary wide' }, signingUp ? 'Create account' : 'Sign in');
  const passwordField = h('div', { class: 'field' },
    h('label', { for: 'password' }, 'Password'),
    h('input', {
      id: 'password', name: 'password', type: 'password', required: true, maxlength: 128,
      autocomplete: signingUp ? 'new-password' : 'current-password',
      'aria-describedby': signingUp ? 'password-hint' : null, minlength: signingUp ? 10 : null,
    }),
    signingUp ? h('p', { id: 'password-hint', class: 'hint' }, 'At least 10 characters. A passphrase of a few words works well.') : null);
  const form = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'email' }, 'Email'),
      h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true, maxlength: 254 })),
    passwordField,
    errors,
    submit);
  if (signingUp && !invite) {
    void api.get('sign-up').then(({ mode }) => {
      if (mode === 'email') passwordField.replaceWith(h('p', { class: 'hint' }, 'We mail you a link; you choose your password on the page it opens.'));
    }, () => {});
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    submit.disabled = true;
    submit.textContent = signingUp ? 'Creating account…' : 'Signing in…';
    try {
      const password = form.contains(passwordField) ? { password: data.get('password') } : {};
      const body = { email: data.get('email'), ...password, ...(invite ? { invite } : {}) };
      const answer = await api.post(signingUp ? 'sign-up' : 'sign-in', body);
      if (answer.verificationSent) {
        form.replaceWith(alertBox('note', h('strong', null, 'Check your email. '),
          `We sent a link to ${body.email}. Open it within a day to choose your password and finish creating your account.`));
        return;
      }
      signedIn(answer);
    } catch (error) {
      showFormError(form, errors, error);
      submit.disabled = false;
      submit.textContent = signingUp ? 'Create account' : 'Sign in';
    }
  });

  return h('section', { class: 'auth card' },
    h('h1', { tabindex: -1 }, signingUp ? 'Create your Munja account' : 'Sign in to Munja'),
    h('p', { class: 'muted' }, signingUp
      ? 'Free, no payment card. You get API keys for the OpenAI-compatible chat completion API.'
      : 'Manage your API keys and see your usage.'),
    invite ? alertBox('note', 'You were invited: create your account below.') : null,
    form,
    signingUp
      ? h('p', { class: 'switch' }, 'Have an account? ', h('a', { href: '/dashboard/sign-in', 'data-nav': true }, 'Sign in'))
      : h('p', { class: 'switch' }, 'New here? ', h('a', { href: '/dashboard/sign-up', 'data-nav': true }, 'Create an account')),
    signingUp ? alertBox('note', 'Keys belong in server-side code only: never put them in browser or mobile apps.') : null);
}
