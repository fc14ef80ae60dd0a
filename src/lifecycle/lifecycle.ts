// Readiness and in-flight accounting for graceful shutdown: /readyz is 503 while starting and
// draining; draining waits (bounded) for requests and streams in flight to finish.

export type Phase = 'starting' | 'ready' | 'draining' | 'stopped';

export class Lifecycle {
  phase: Phase = 'starting';
  #inFlight = 0;
  #idle: (() => void) | null = null;

  get ready(): boolean {
    return this.phase === 'ready';
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  markReady(): void {
    if (this.phase === 'starting') this.phase = 'ready';
  }

  enter(): void {
    this.#inFlight++;
  }

  leave(): void {
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#idle) this.#idle();
  }

  /** Resolves true when nothing is in flight, false when the grace period ran out first. */
  drain(graceMs: number): Promise<boolean> {
    this.phase = 'draining';
    if (this.#inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#idle = null; resolve(false); }, graceMs);
      this.#idle = () => { clearTimeout(timer); this.#idle = null; resolve(true); };
    });
  }
}
