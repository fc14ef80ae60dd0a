// A tool call as the `Abortable` client of the completion service. The SDK aborts a handler's
// signal on `notifications/cancelled` and when the server closes, which the endpoint does as soon
// as the HTTP client goes away, so the generation (or the upstream request) stops.
import type { Abortable } from '../http/request-context.ts';

export function signalAbortable(requestId: string, signal: AbortSignal): Abortable {
  const abortable: { requestId: string; aborted: boolean; onAbort: (() => void) | null } = { requestId, aborted: signal.aborted, onAbort: null };
  if (!signal.aborted) {
    signal.addEventListener(
      'abort',
      () => {
        abortable.aborted = true;
        const onAbort = abortable.onAbort;
        abortable.onAbort = null;
        onAbort?.();
      },
      { once: true },
    );
  }
  return abortable;
}
