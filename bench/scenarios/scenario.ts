// What a scenario is: one request, sent over and over to one target, with the status it must
// get and a check of one full response (made before the load, so the load generator does not
// have to buffer bodies).

/** Where requests go. Later peers (nginx, another gateway) are more targets for the same workloads. */
export type TargetName = 'direct' | 'munja';

export interface Targets {
  /** `http://127.0.0.1:PORT` of the mock upstream (the "direct" baseline). */
  readonly direct: string;
  /** `http://127.0.0.1:PORT` of Munja. */
  readonly munja: string;
  /** A Munja key that may use every model. */
  readonly key: string;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface Scenario {
  /** Short and unique, e.g. `chat-json/munja`. */
  readonly id: string;
  /** What is measured, e.g. `non-streaming chat`. */
  readonly workload: string;
  readonly target: TargetName;
  /** The id of the scenario this one is compared with (the same workload sent to `direct`). */
  readonly baseline?: string;
  /** Every response must have this status (200, or 400/401 for the rejection scenarios). */
  readonly expectStatus: number;
  request(targets: Targets): HttpRequest;
  /** A problem with one full response body, or undefined when it is right. */
  check(body: string): string | undefined;
}
