// Browsers keep the dashboard's Secure session cookie from plain HTTP only on loopback hosts: opened
// over http:// at any other address, signing in seems to work and then every page says the session
// is missing. The server marks the page with its cookie (`data-session-cookie` on <html>), so the
// notice shows only where the cookie would be dropped (not with MUNJA_INSECURE_COOKIES=1).
import { h } from './dom.js';
import { alertBox } from './widgets.js';

const LOOPBACK = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/;

export function plainHttpNotice() {
  if (location.protocol !== 'http:' || LOOPBACK.test(location.hostname)) return null;
  if (document.documentElement.dataset.sessionCookie !== 'secure') return null;
  const local = `http://127.0.0.1${location.port ? `:${location.port}` : ''}/dashboard`;
  return h('div', { class: 'site-notice', id: 'plain-http-notice' }, alertBox('warning',
    h('strong', null, 'Signing in will not last at this address. '),
    `This page came over plain HTTP from ${location.hostname}, and browsers keep the dashboard's secure session cookie over plain HTTP only at 127.0.0.1 or localhost: after signing in, every page would say the session is missing. `,
    'Open the dashboard over HTTPS (Munja\'s TLS settings, ', h('code', null, 'MUNJA_TLS_CERT'), ' and ', h('code', null, 'MUNJA_TLS_KEY'),
    ', or a TLS-terminating proxy), or at ', h('code', null, local), ' on the server\'s own machine; on a trusted network, start Munja with ',
    h('code', null, 'MUNJA_INSECURE_COOKIES=1'), '.'));
}
