// The first CSRF defence, for every state-changing dashboard request, signed in or not (sign-in
// and sign-up included): a browser says where a request comes from in Sec-Fetch-Site (modern
// browsers) and Origin (every browser, on a POST). Either one naming another site is refused.
// A request with neither comes from a program, not from a page on another site; signed-in
// requests must still carry the CSRF token (sessions.ts).
import { ApiError } from '../errors/api-error.ts';
import type { DashboardHeaders } from '../http/request-context.ts';

export function checkSameOrigin(headers: DashboardHeaders): void {
  if (headers.secFetchSite !== '' && headers.secFetchSite !== 'same-origin') {
    throw new ApiError('csrf_failed', { message: `The request came from another site (Sec-Fetch-Site: ${headers.secFetchSite.slice(0, 20)}).` });
  }
  if (headers.origin !== '' && hostOf(headers.origin) !== headers.host.toLowerCase()) {
    throw new ApiError('csrf_failed', { message: 'The request came from another origin.' });
  }
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null; // `Origin: null` (sandboxed frames, some redirects) is never this dashboard
  }
}
