// The signed-in account's security: change the password, or sign out every other browser. Both
// end every other session of the account; this one stays signed in.
import { api } from './api.js';
import { announce, h } from './dom.js';
import { alertBox, showFormError } from './widgets.js';

function endedText(ended) {
  return ended === 1 ? 'One other session was signed out.' : `${ended} other sessions were signed out.`;
}

function passwordForm() {
  const errors = h('div', { class: 'form-errors' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Change password');
  const form = h('form', { class: 'stack', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'current-password' }, 'Current password'),
      h('input', { id: 'current-password', name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true, maxlength: 128 })),
    h('div', { class: 'field' },
      h('label', { for: 'new-password' }, 'New password'),
      h('input', {
        id: 'new-password', name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true,
        minlength: 10, maxlength: 128, 'aria-describedby': 'new-password-hint',
      }),
      h('p', { id: 'new-password-hint', class: 'hint' }, 'At least 10 characters. Every other session of this account is signed out.')),
    errors,
    submit);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    submit.disabled = true;
    try {
      const { ended } = await api.post('password', { currentPassword: data.get('currentPassword'), newPassword: data.get('newPassword') });
      form.reset();
      errors.replaceChildren(alertBox('note', `Password changed. ${endedText(ended)}`));
      announce('Password changed.');
    } catch (error) {
      showFormError(form, errors, error);
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function signOutOthers() {
  const result = h('div', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'button' }, 'Sign out everywhere else');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const { ended } = await api.post('sessions/end-others');
      result.replaceChildren(alertBox('note', endedText(ended)));
    } catch (error) {
      result.replaceChildren(alertBox('error', error.message));
    } finally {
      button.disabled = false;
    }
  });
  return h('div', { class: 'stack' },
    h('p', { class: 'muted' }, 'Signs out every other browser and device signed in to this account. You stay signed in here.'),
    button, result);
}

export function renderAccount({ session }) {
  return h('div', { class: 'stack-lg' },
    h('div', { class: 'page-head' },
      h('h1', { tabindex: -1 }, 'Account'),
      h('p', { class: 'muted' }, `Signed in as ${session.account.email}.`)),
    h('section', { class: 'card', 'aria-labelledby': 'password-title' }, h('h2', { id: 'password-title' }, 'Password'), passwordForm()),
    h('section', { class: 'card', 'aria-labelledby': 'sessions-title' }, h('h2', { id: 'sessions-title' }, 'Sessions'), signOutOthers()));
}
