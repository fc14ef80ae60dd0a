// Stream delivery: does a proxy pass each SSE chunk on as it comes, or hold it? The mock writes
// paced chunks whose content is the CLOCK_MONOTONIC time they were written; the client (this
// process, same clock) takes the time each one arrives. Also the time from sending the request to
// the first bytes of the event stream. And the proxy's CPU per stream: its chunks come one by one,
// as a model server's tokens do, so each costs the proxy a read and a send whatever the load.
import { HttpConnection, requestBytes } from './http-connection.ts';
import { STAMP_CHUNKS, STAMP_PACE_MS } from './mock/models.ts';
import { nowMs } from './paced-load.ts';
import { cpuNanoseconds, processTree } from './proc-stats.ts';
import { type Percentiles, Samples } from './samples.ts';
import { chatRequest, type Target } from './scenarios/index.ts';

export interface DeliveryResult {
  readonly target: Target;
  readonly streams: number;
  /** Streams that did not bring every stamped chunk, or failed. */
  readonly failedStreams: number;
  /** From the mock writing a chunk to the client reading it. */
  readonly deliveryMs: Percentiles;
  /** From sending the request to the first bytes of the event stream. */
  readonly firstEventMs: Percentiles;
  /** The proxy's CPU (all its processes and threads) per stream; NaN for `direct`. */
  readonly proxyCpuMsPerStream: number;
}

const STAMP = /"content":"t(\d+)"/g;

/** Streams one stamped stream on `connection`, adding its chunks' delivery times to `delivery`. */
function oneStream(connection: HttpConnection, bytes: Buffer, delivery: Samples, firstEvent: Samples): Promise<boolean> {
  return new Promise((settle) => {
    // A hang guard: a stream takes STAMP_CHUNKS × STAMP_PACE_MS when all is well.
    const timer = setTimeout(() => {
      connection.destroy();
      settle(false);
    }, STAMP_CHUNKS * STAMP_PACE_MS + 10_000);
    const resolve = (complete: boolean) => {
      clearTimeout(timer);
      settle(complete);
    };
    const sentAt = nowMs();
    let first = true;
    let carry = '';
    let stamped = 0;
    connection.send(bytes, {
      onBody: (piece) => {
        const arrived = process.hrtime.bigint();
        if (first) {
          firstEvent.add(nowMs() - sentAt);
          first = false;
        }
        const text = carry + piece.toString('latin1');
        // Only whole events: a stamp cut in two by the network waits for its second half.
        const end = text.lastIndexOf('\n\n');
        carry = end < 0 ? text : text.slice(end + 2);
        if (end < 0) return;
        for (const match of text.slice(0, end).matchAll(STAMP)) {
          delivery.add(Number(arrived - BigInt(match[1]!)) / 1e6);
          stamped++;
        }
      },
      onEnd: (status) => resolve(status === 200 && stamped === STAMP_CHUNKS),
      onError: () => resolve(false),
    });
  });
}

export async function runDelivery(target: Target, options: { seconds: number; concurrency: number }): Promise<DeliveryResult> {
  const request = chatRequest(target, 'stamp', true);
  const url = new URL(request.url);
  const bytes = requestBytes(request);
  const delivery = new Samples();
  const firstEvent = new Samples();
  let streams = 0;
  let failedStreams = 0;
  const pids = target.pids.flatMap(processTree);
  const proxyCpu = () => pids.reduce((sum, pid) => sum + cpuNanoseconds(pid), 0);
  const cpuBefore = proxyCpu();
  const deadline = nowMs() + options.seconds * 1000;
  const worker = async () => {
    let connection: HttpConnection | undefined;
    while (nowMs() < deadline) {
      try {
        if (connection === undefined || connection.closed) connection = await HttpConnection.open(Number(url.port), url.hostname);
        const complete = await oneStream(connection, bytes, delivery, firstEvent);
        streams++;
        if (!complete) failedStreams++;
      } catch {
        streams++;
        failedStreams++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    connection?.destroy();
  };
  // Every stream started before the deadline runs to its end, so the CPU read here is theirs alone.
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const proxyCpuMsPerStream = pids.length === 0 || streams === 0 ? Number.NaN : (proxyCpu() - cpuBefore) / 1e6 / streams;
  return { target, streams, failedStreams, deliveryMs: delivery.percentiles(), firstEventMs: firstEvent.percentiles(), proxyCpuMsPerStream };
}
