// Creating a key: name, optional model scope and limits (within the operator's), then the full
// key, shown this once with a copy button.
import { api } from './api.js';
import { announce, formatNumber, h } from './dom.js';
import { alertBox, copyButton, showFormError } from './widgets.js';

function limitField(name, label, max) {
  return h('div', { class: 'field' },
    h('label', { for: `key-${name}` }, label),
    h('input', {
      id: `key-${name}`, name, type: 'number', inputmode: 'numeric', min: 1, max, step: 1,
      placeholder: `${formatNumber(max)} (default)`, 'aria-describedby': `key-${name}-hint`,
    }),
    h('p', { id: `key-${name}-hint`, class: 'hint' }, `Up to ${formatNumber(max)}. Empty: the default.`));
}

/** The panel that shows a new key once. */
function newKeyPanel(created, onDone) {
  const code = h('code', { class: 'secret', id: 'new-key' }, created.key);
  const done = h('button', { type: 'button', class: 'button', onclick: () => onDone() }, 'I have stored it');
  const panel = h('section', { class: 'new-key card', 'aria-labelledby': 'new-key-title', tabindex: -1 },
    h('h2', { id: 'new-key-title' }, `Your new key “${created.record.name}”`),
    alertBox('warning', h('strong', null, 'Copy it now: it is shown only this once. '),
      'Munja keeps only a digest of it; a lost key can only be revoked and replaced. Keep it in server-side code or a secret store.'),
    h('div', { class: 'secret-row' }, code, copyButton(() => created.key, 'Copy the new key', code)),
    h('div', { class: 'actions' }, done));
  return panel;
}

export function keyForm(session, { onCreated }) {
  const errors = h('div', { class: 'form-errors' });
  const submit = h('button', { type: 'submit', class: 'button primary' }, 'Create key');
  const shown = h('div');
  const modelBoxes = session.models.map((model) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'models', value: model }), ' ', h('code', null, model)));
  const form = h('form', { class: 'key-form', novalidate: true, 'aria-labelledby': 'create-title' },
    h('div', { class: 'field' },
      h('label', { for: 'key-name' }, 'Name'),
      h('input', { id: 'key-name', name: 'name', required: true, maxlength: 64, placeholder: 'e.g. backend-production', autocomplete: 'off' })),
    h('fieldset', { class: 'field' },
      h('legend', null, 'Models'),
      h('p', { class: 'hint' }, 'Leave all unchecked to allow every model.'),
      h('div', { class: 'checks' }, modelBoxes)),
    h('div', { class: 'row' },
      limitField('rpm', 'Requests per minute', session.limits.rpm),
      limitField('tpm', 'Tokens per minute', session.limits.tpm)),
    errors,
    h('div', { class: 'actions' }, submit));
  const suspended = session.account.status !== 'active';
  if (suspended) for (const control of form.querySelectorAll('input, button')) control.disabled = true;

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const number = (name) => (data.get(name) === '' ? null : Number(data.get(name)));
    submit.disabled = true;
    try {
      const created = await api.post('keys', {
        name: data.get('name'), models: data.getAll('models'), rpm: number('rpm'), tpm: number('tpm'),
      });
      form.reset();
      errors.replaceChildren();
      const panel = newKeyPanel(created, () => { panel.remove(); form.querySelector('input')?.focus(); });
      shown.replaceChildren(panel);
      panel.focus();
      announce(`Key ${created.record.name} created. Copy it now: it is shown only once.`);
      onCreated(created.record);
    } catch (error) {
      showFormError(form, errors, error);
    } finally {
      submit.disabled = false;
    }
  });

  return h('div', null,
    shown,
    h('section', { class: 'card' }, h('h2', { id: 'create-title' }, 'Create a key'), form));
}
