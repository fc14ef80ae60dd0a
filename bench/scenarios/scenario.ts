// What is measured, and where: a target is one way to reach the mock upstream (directly, or
// through a proxy), a scenario one request sent over and over to one target, with the status it
// must get and a check of one full response (made before the load, so the load generator does not
// have to buffer bodies).
import type { MockKind } from '../mock/models.ts';

export type TargetName = 'direct' | 'nginx' | 'portkey' | 'floor' | 'munja' | 'munja-redis';

export interface Target {
  readonly name: TargetName;
  /** For tables: `direct`, `nginx 1.22.1`, … */
  readonly label: string;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Sent with every request (a key, or a peer's routing headers). */
  readonly headers: Readonly<Record<string, string>>;
  /** The model id to ask for to make the mock behave as `kind`. */
  model(kind: MockKind): string;
  /** The model id the reply must carry (Munja answers with its public id). */
  replyModel(kind: MockKind): string;
  /** PIDs whose process trees are the target's CPU and memory; empty for `direct`. */
  readonly pids: readonly number[];
  /** Munja only: a key that is not the bench key, limited to 1 request per minute. */
  readonly tinyLimitKey?: string;
  /** Munja only: more keys like the bench key (the many-streams run spreads its streams over them). */
  readonly extraKeys?: readonly string[];
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
  /** Every response must have this status (200, or 400/401/429 for the rejections). */
  readonly expectStatus: number;
  /** Send the request once before the check (the 429 key's one allowed request). */
  readonly prime?: boolean;
  request(target: Target): HttpRequest;
  /** A problem with one full response body, or undefined when it is right. */
  check(body: string, target: Target): string | undefined;
}
