// Which shared prompt prefixes (a leading system message, by hash) each upstream has been sent
// lately, for the estimate of what its engine has to prefill: one that served it holds it in its
// prefix cache (while it has room), one that has not must prefill it first. At most `capacity`
// prefixes per upstream, the least recently sent forgotten first.
import type { UpstreamConfig } from '../config/config-types.ts';

export class SharedPrefixes {
  readonly #sent = new Map<UpstreamConfig, Map<number, true>>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  has(upstream: UpstreamConfig, prefix: number): boolean {
    return this.#sent.get(upstream)?.has(prefix) === true;
  }

  sent(upstream: UpstreamConfig, prefix: number): void {
    let prefixes = this.#sent.get(upstream);
    if (prefixes === undefined) {
      prefixes = new Map();
      this.#sent.set(upstream, prefixes);
    }
    prefixes.delete(prefix);
    prefixes.set(prefix, true);
    if (prefixes.size > this.#capacity) prefixes.delete(prefixes.keys().next().value!);
  }
}
