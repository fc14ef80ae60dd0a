// Readiness and in-flight accounting for graceful shutdown. /readyz is 503 while starting and
// draining. Draining goes on serving (a load balancer may still send requests until it notices),
// asks every client to reconnect elsewhere (Connection: close), waits a bounded time for what is in
// flight, and ends what is still running at the deadline with `shutting_down`.
import type { RequestContext } from '../http/request-context.ts';
import { InFlightRequests } from './in-flight-requests.ts';
import { interrupt } from './interrupt.ts';

export type Phase = 'starting' | 'ready' | 'draining' | 'stopped';

// After the deadline, interrupted handlers get this long to unwind before the connections close.
const UNWIND_MS = 1_000;

export class Lifecycle {
  phase: Phase = 'starting';
  readonly #requests = new InFlightRequests<RequestContext>();
  #idle: (() => void) | null = null;
  #begun = 0;

  get ready(): boolean {
    return this.phase === 'ready';
  }

  get inFlight(): number {
    return this.#requests.size;
  }

  /** Requests begun since the start. */
  get begun(): number {
    return this.#begun;
  }

  markReady(): void {
    if (this.phase === 'starting') this.phase = 'ready';
  }

  enter(ctx: RequestContext): void {
    this.#begun += 1;
    this.#requests.add(ctx);
    if (this.phase === 'draining') ctx.closeConnection = true;
  }

  leave(ctx: RequestContext): void {
    this.#requests.delete(ctx);
    if (this.#requests.size === 0) this.#idle?.();
  }

  /** /readyz turns 503 and every response from now on closes its connection; serving goes on. */
  beginDrain(): void {
    if (this.phase === 'stopped') return;
    this.phase = 'draining';
    for (const ctx of this.#requests.items()) ctx.closeConnection = true;
  }

  /**
   * Waits up to `graceMs` for what is in flight; then ends the rest with `shutting_down` (a last
   * SSE event on a stream) and stops the work behind it. True when nothing had to be cut off.
   */
  async drain(graceMs: number): Promise<boolean> {
    this.beginDrain();
    if (await this.#whenIdle(graceMs)) return true;
    for (const ctx of this.#requests.items()) interrupt(ctx);
    await this.#whenIdle(UNWIND_MS);
    return false;
  }

  #whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.#requests.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#idle = null; resolve(false); }, timeoutMs);
      this.#idle = () => { clearTimeout(timer); this.#idle = null; resolve(true); };
    });
  }
}
