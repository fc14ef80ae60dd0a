// Who made a dashboard change, as the audit log names it: the signed-in account and its address.
import type { DashboardHeaders } from '../http/request-context.ts';
import type { AuditActor } from '../store/audit.ts';
import { clientAddress } from './client-address.ts';
import type { DashboardDeps } from './dashboard-deps.ts';

export function dashboardActor(deps: DashboardDeps, headers: DashboardHeaders, accountId: string): AuditActor {
  return { actor: accountId, address: clientAddress(headers, deps.config.dashboard.trustProxy) };
}
