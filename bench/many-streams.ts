// Many concurrent open streams on one Munja worker: streams from a slow upstream (a chunk a second)
// are opened at a steady rate, held, then all cut by the client. Munja's memory and descriptors
// are read at idle, at the peak, and once the streams are gone. Each relayed stream holds two
// descriptors in Munja (client and upstream), so the count is capped by its open-file limit.
import { HttpConnection, requestBytes } from './http-connection.ts';
import { nowMs } from './paced-load.ts';
import { fdCount, openFileLimit } from './proc-stats.ts';
import { treeRssBytes } from './resource-watch.ts';
import { chatRequest, type Target } from './scenarios/index.ts';

export interface ManyStreamsResult {
  readonly wanted: number;
  readonly attempted: number;
  /** Set when fewer than `wanted` were attempted, and why. */
  readonly capNote: string | undefined;
  /** Streams that got a 200 and their first bytes. */
  readonly opened: number;
  /** Connections refused, non-200 answers, streams that ended or broke while held. */
  readonly errors: number;
  /** What the errors were, e.g. `status 503: 12`. */
  readonly errorKinds: Readonly<Record<string, number>>;
  /** Open streams that had no chunk during the last seconds of the hold. */
  readonly stalled: number;
  readonly perSecond: number;
  /** Keys the streams were spread over. */
  readonly keys: number;
  readonly openSeconds: number;
  readonly idle: { rssBytes: number; fds: number };
  readonly peak: { rssBytes: number; fds: number };
  readonly afterClose: { rssBytes: number; fds: number };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Descriptors Munja needs besides the streams (listeners, log, store, engine, Redis, margin).
const FD_MARGIN = 100;
/**
 * When the after-close reading is taken, once the descriptors are back: Munja collects the surge's
 * garbage within about two seconds, and V8 returns the freed pages about ten seconds later.
 */
export const AFTER_CLOSE_SECONDS = 12;

export async function runManyStreams(target: Target, options: { wanted: number; perSecond: number; holdSeconds: number }): Promise<ManyStreamsResult> {
  const pid = target.pids[0]!;
  const idle = { rssBytes: treeRssBytes(pid), fds: fdCount(pid) };
  const limit = openFileLimit(pid);
  const cap = Math.floor((limit - idle.fds - FD_MARGIN) / 2);
  const attempted = Math.max(0, Math.min(options.wanted, cap));
  const capNote = attempted < options.wanted
    ? `Munja's open-file limit here is ${limit} (a hard limit this machine does not let us raise); each relayed stream holds 2 descriptors, so ${attempted} streams`
    : undefined;

  // Munja caps the requests one key has in flight (a guard for when the limiter cannot): the streams
  // are spread over several keys, as they would be over many clients.
  const keys = [target.headers.authorization, ...(target.extraKeys ?? []).map((key) => `Bearer ${key}`)];
  const request = chatRequest(target, 'slow', true);
  const url = new URL(request.url);
  const requests = keys.map((authorization) => requestBytes({ ...request, headers: { ...request.headers, ...(authorization === undefined ? {} : { authorization }) } }));
  const connections: HttpConnection[] = [];
  const lastData: number[] = [];
  let opened = 0;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const fail = (kind: string) => {
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let closing = false;
  const peak = { ...idle };
  const sample = () => {
    peak.rssBytes = Math.max(peak.rssBytes, treeRssBytes(pid));
    peak.fds = Math.max(peak.fds, fdCount(pid));
  };
  const sampler = setInterval(sample, 250);

  const openOne = async (index: number) => {
    try {
      const connection = await HttpConnection.open(Number(url.port), url.hostname, 30_000);
      connections.push(connection);
      let first = true;
      connection.send(requests[index % requests.length]!, {
        onBody: () => {
          lastData[index] = nowMs();
          if (first) {
            first = false;
            opened++;
          }
        },
        onEnd: (status) => {
          if (!closing) fail(status === 200 ? 'stream ended early' : `status ${status}`);
        },
        onError: (error) => {
          if (!closing) fail(error.message);
        },
      });
    } catch (error) {
      fail(`connect: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const began = nowMs();
  const batch = Math.max(1, Math.round(options.perSecond / 20));
  for (let index = 0; index < attempted; index += batch) {
    for (let offset = index; offset < Math.min(attempted, index + batch); offset++) void openOne(offset);
    await sleep(50);
  }
  const openDeadline = nowMs() + 60_000;
  while (opened + errors < attempted && nowMs() < openDeadline) await sleep(100);
  const openSeconds = (nowMs() - began) / 1000;

  await sleep(options.holdSeconds * 1000);
  sample();
  // The slow mock sends a chunk a second: a stream with nothing for 3 s is stuck.
  const now = nowMs();
  let stalled = 0;
  for (let index = 0; index < attempted; index++) if (lastData[index] !== undefined && now - lastData[index]! > 3_000) stalled++;

  closing = true;
  clearInterval(sampler);
  for (const connection of connections) connection.destroy();
  const closeDeadline = nowMs() + 20_000;
  while (fdCount(pid) > idle.fds + 20 && nowMs() < closeDeadline) await sleep(200);
  await sleep(AFTER_CLOSE_SECONDS * 1000);
  return {
    wanted: options.wanted,
    attempted,
    capNote,
    opened,
    errors,
    errorKinds,
    stalled,
    perSecond: options.perSecond,
    keys: keys.length,
    openSeconds,
    idle,
    peak,
    afterClose: { rssBytes: treeRssBytes(pid), fds: fdCount(pid) },
  };
}
