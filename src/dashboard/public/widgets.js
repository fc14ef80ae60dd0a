// Small pieces several views share: copy buttons, alerts, confirmation dialogs, form errors, pagers.
import { announce, h } from './dom.js';

/** A button that copies `text()`; falls back to selecting `target` where the clipboard is refused. */
export function copyButton(text, label = 'Copy', target = null) {
  const button = h('button', { type: 'button', class: 'button small', 'aria-label': `${label}` }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
      announce('Copied to the clipboard.');
    } catch {
      if (target) getSelection().selectAllChildren(target);
      button.textContent = 'Press Ctrl+C';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  });
  return button;
}

/** A code block with a copy button. */
export function codeBlock(code, label) {
  const pre = h('pre', { class: 'code' }, h('code', null, code));
  return h('div', { class: 'code-block' }, pre, copyButton(() => code, label, pre));
}

export function alertBox(kind, ...content) {
  return h('div', { class: `alert ${kind}`, role: kind === 'error' ? 'alert' : 'note' }, ...content);
}

export function suspendedNotice(session) {
  if (session.account.status !== 'suspended') return null;
  return alertBox('warning', h('strong', null, 'Your account is suspended. '),
    'Requests with its keys are refused with 403 ', h('code', null, 'account_suspended'),
    ' and new keys cannot be created until an operator resumes it. You can still sign in and see your usage.');
}

/** Shows a modal question; resolves true when confirmed. Escape or Cancel resolve false. */
export function confirmDialog({ title, message, confirmLabel, danger = false }) {
  return new Promise((resolve) => {
    const cancel = h('button', { type: 'button', class: 'button' }, 'Cancel');
    const confirm = h('button', { type: 'button', class: `button ${danger ? 'danger' : 'primary'}` }, confirmLabel);
    const titleId = `dialog-${Math.random().toString(36).slice(2)}`;
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, title), h('p', null, message), h('div', { class: 'actions' }, cancel, confirm));
    const close = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    cancel.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(false); });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** Shows an API error under a form and marks the field it names. */
export function showFormError(form, slot, error) {
  for (const field of form.querySelectorAll('[aria-invalid]')) field.removeAttribute('aria-invalid');
  const field = error.param ? form.querySelector(`[name="${error.param}"]`) : null;
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }
  slot.replaceChildren(alertBox('error', error.message));
}

/** "Keys 1–25 of 140" with buttons to the pages before and after; the API answers a page at a time. */
export function pager({ offset, pageSize, total, noun, onPage, labels = ['Newer', 'Older'] }) {
  if (total <= pageSize) return null;
  const last = Math.min(offset + pageSize, total);
  return h('nav', { class: 'pager', 'aria-label': `${noun} pages` },
    h('button', { type: 'button', class: 'button small', disabled: offset === 0, onclick: () => onPage(Math.max(0, offset - pageSize)) }, labels[0]),
    h('span', { class: 'muted' }, `${noun} ${offset + 1}–${last} of ${total}`),
    h('button', { type: 'button', class: 'button small', disabled: last >= total, onclick: () => onPage(offset + pageSize) }, labels[1]));
}

/** The API path of one page of a list: `keys`, `keys/page/25`, … */
export function pagePath(base, offset) {
  return offset === 0 ? base : `${base}/page/${offset}`;
}
