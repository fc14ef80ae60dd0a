// The web dashboard at /dashboard: its pages and the JSON API they call (/dashboard/api/…).
import { createSecretKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { BudgetGate } from '../budget/budget-gate.ts';
import type { Config } from '../config/config-types.ts';
import type { Router } from '../http/router.ts';
import type { Logger } from '../observability/logger.ts';
import type { Store } from '../store/store.ts';
import { me, signIn, signOut } from './account-api.ts';
import { changePassword, endOtherSessions } from './account-sessions-api.ts';
import { createInvite, listAccounts, setAccountStatus } from './admin-api.ts';
import { adminUsage } from './admin-usage-api.ts';
import { AUDIT_API_PATH, AUDIT_BEFORE_PREFIX, createAdminKey, listAudit } from './admin-audit-api.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { type DashboardRequest, dashboardRoute } from './dashboard-http.ts';
import { createKey, listKeys, revokeKey } from './keys-api.ts';
import { SmtpMailer } from './mailer.ts';
import { servePage } from './pages.ts';
import { PasswordHasher } from './password-hasher.ts';
import { Sessions } from './sessions.ts';
import { SignInThrottle } from './sign-in-throttle.ts';
import { signUp, signUpMode } from './sign-up-api.ts';
import { StaticFiles } from './static-files.ts';
import { usage } from './usage-api.ts';
import { checkVerification, verifyEmail } from './verify-api.ts';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

type ApiHandler = (deps: DashboardDeps, request: DashboardRequest) => Promise<void>;

export async function mountDashboard(router: Router, options: { config: Config; store: Store; logger: Logger; budgets?: BudgetGate | null }): Promise<void> {
  const { config, store, logger } = options;
  if (!config.dashboard.enabled) return;
  const { mail } = config.dashboard;
  const deps: DashboardDeps = {
    config,
    store,
    logger,
    sessions: new Sessions(store, createSecretKey(await store.keySecret()), config.dashboard),
    hasher: new PasswordHasher(config.dashboard.hashConcurrency),
    throttle: new SignInThrottle(store, config.dashboard),
    mailer: config.dashboard.signUp === 'email' && mail !== null ? new SmtpMailer(mail.smtpUrl, mail.from) : null,
    budgets: options.budgets ?? null,
  };
  // The page warns when it is opened where the browser would drop the session cookie (plain-http-notice.js).
  const files = new StaticFiles(PUBLIC_DIR, { 'data-session-cookie': config.dashboard.secureCookies ? 'secure' : 'plain' });
  const api = (handler: ApiHandler) => dashboardRoute(logger, config.bodyTimeoutMs, (request) => handler(deps, request));
  const page = dashboardRoute(logger, config.bodyTimeoutMs, async (request) => servePage(files, request));
  router
    .on('GET', '/dashboard/api/sign-up', api(signUpMode))
    .on('POST', '/dashboard/api/sign-up', api(signUp))
    .on('POST', '/dashboard/api/verify/check', api(checkVerification))
    .on('POST', '/dashboard/api/verify', api(verifyEmail))
    .on('POST', '/dashboard/api/sign-in', api(signIn))
    .on('POST', '/dashboard/api/sign-out', api(signOut))
    .on('GET', '/dashboard/api/me', api(me))
    .on('POST', '/dashboard/api/password', api(changePassword))
    .on('POST', '/dashboard/api/sessions/end-others', api(endOtherSessions))
    .on('GET', '/dashboard/api/keys', api(listKeys))
    .onPrefix('GET', '/dashboard/api/keys/page/', api(listKeys))
    .on('POST', '/dashboard/api/keys', api(createKey))
    .on('POST', '/dashboard/api/keys/revoke', api(revokeKey))
    .on('GET', '/dashboard/api/usage', api(usage))
    .onPrefix('GET', '/dashboard/api/usage/page/', api(usage))
    .on('GET', '/dashboard/api/admin/accounts', api(listAccounts))
    .onPrefix('GET', '/dashboard/api/admin/accounts/page/', api(listAccounts))
    .on('POST', '/dashboard/api/admin/accounts/status', api(setAccountStatus))
    .on('GET', '/dashboard/api/admin/usage', api(adminUsage))
    .onPrefix('GET', '/dashboard/api/admin/usage/page/', api(adminUsage))
    .on('POST', '/dashboard/api/admin/invites', api(createInvite))
    .on('GET', AUDIT_API_PATH, api(listAudit))
    .onPrefix('GET', AUDIT_BEFORE_PREFIX, api(listAudit))
    .on('POST', '/dashboard/api/admin/keys', api(createAdminKey))
    .on('GET', '/dashboard', page)
    .on('GET', '/dashboard/', page)
    .onPrefix('GET', '/dashboard/', page);
}
