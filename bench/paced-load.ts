// An open-loop load generator: requests are scheduled at fixed times (rate per second) whatever
// the responses do, and each latency is measured from its scheduled time, so a slow response that
// holds up the next sends is counted against the target (no coordinated omission). A worker thread
// keeps the schedule with Atomics.wait (sub-millisecond sleeps; Node's timers tick in whole
// milliseconds) and tells the main thread which sends are due; the main thread sends on a pool of
// keep-alive connections opened beforehand. How well the generator itself kept up is reported
// (sends later than 1 ms after their time, requests that waited for a free connection).
import { Worker } from 'node:worker_threads';
import { HttpConnection, requestBytes } from './http-connection.ts';
import { type Percentiles, Samples } from './samples.ts';
import type { HttpRequest } from './scenarios/scenario.ts';

export interface PacedOptions {
  readonly rate: number;
  readonly seconds: number;
  /** Keep-alive connections opened before the first send; more are opened only when all are busy. */
  readonly connections: number;
  /** Give up (the target cannot hold the rate) when this many requests are outstanding. */
  readonly maxOutstanding: number;
}

export interface PacedResult {
  readonly rate: number;
  readonly scheduled: number;
  readonly sent: number;
  readonly completed: number;
  readonly errors: number;
  /** Responses by status. */
  readonly statuses: Readonly<Record<string, number>>;
  /** From the scheduled send time to the end of the response. */
  readonly latencyMs: Percentiles;
  /** From the actual send to the end of the response. */
  readonly serviceMs: Percentiles;
  /** How late sends left after their scheduled time (the generator's own lag). */
  readonly sendLagMs: Percentiles;
  readonly lateSends: number;
  /** Sends that waited because every connection was busy. */
  readonly queuedSends: number;
  readonly connectionsOpened: number;
  /** Set when the run was stopped early: the target fell too far behind. */
  readonly gaveUp: string | undefined;
  /** Every latency sample, for the plots. */
  readonly latencySamples: Float64Array;
  /** Share of the machine's CPU time taken by the hypervisor during the run (set by the caller). */
  readonly steal?: number;
}

const LATE_MS = 1;
const DRAIN_MS = 5_000;

/** Milliseconds on CLOCK_MONOTONIC, the same clock in every thread and process. */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

// The pacer: sleeps until each send is due and posts the index up to which sends are due.
const PACER = `
const { parentPort, workerData } = require('node:worker_threads');
const { startMs, intervalMs, count } = workerData;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const cell = new Int32Array(new SharedArrayBuffer(4));
let due = 0;
while (due < count) {
  const wait = startMs + due * intervalMs - nowMs();
  if (wait > 0.02) Atomics.wait(cell, 0, 0, wait);
  const now = nowMs();
  while (due < count && startMs + due * intervalMs <= now) due++;
  parentPort.postMessage(due);
}
`;

export async function runPaced(request: HttpRequest, options: PacedOptions): Promise<PacedResult> {
  const url = new URL(request.url);
  const port = Number(url.port);
  const bytes = requestBytes(request);
  const idle: HttpConnection[] = [];
  for (let index = 0; index < options.connections; index++) idle.push(await HttpConnection.open(port, url.hostname));
  const all = [...idle];
  let connectionsOpened = all.length;

  const count = Math.round(options.rate * options.seconds);
  const intervalMs = 1000 / options.rate;
  const startMs = nowMs() + 20;
  const latency = new Samples(count);
  const service = new Samples(count);
  const lag = new Samples(count);
  const statuses: Record<string, number> = {};
  const queue: number[] = [];
  let next = 0;
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let lateSends = 0;
  let queuedSends = 0;
  let outstanding = 0;
  let gaveUp: string | undefined;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const maybeDone = () => {
    if ((next >= count || gaveUp !== undefined) && outstanding === 0) finish();
  };

  const sendOn = (connection: HttpConnection, index: number) => {
    const scheduled = startMs + index * intervalMs;
    const sentAt = nowMs();
    lag.add(sentAt - scheduled);
    if (sentAt - scheduled > LATE_MS) lateSends++;
    sent++;
    connection.send(bytes, {
      onEnd: (status) => {
        const now = nowMs();
        latency.add(now - scheduled);
        service.add(now - sentAt);
        statuses[status] = (statuses[status] ?? 0) + 1;
        completed++;
        release(connection);
      },
      onError: () => {
        errors++;
        release(connection);
      },
    });
  };
  /** A connection is free: `answered` when a request on it just ended (fresh connections are free too). */
  const release = (connection: HttpConnection, answered = true) => {
    if (answered) outstanding--;
    const waiting = connection.closed || gaveUp !== undefined ? undefined : queue.shift();
    if (waiting !== undefined) sendOn(connection, waiting);
    else if (!connection.closed) idle.push(connection);
    maybeDone();
  };
  const dispatch = (index: number) => {
    outstanding++;
    const connection = idle.pop();
    if (connection !== undefined) return sendOn(connection, index);
    queuedSends++;
    queue.push(index);
    // Every connection is busy: open one more, up to 4× the pool (the request waits meanwhile; its
    // latency counts from its schedule).
    if (connectionsOpened >= options.connections * 4) return;
    connectionsOpened++;
    HttpConnection.open(port, url.hostname).then((fresh) => {
      all.push(fresh);
      release(fresh, false);
    }, () => {
      errors++;
    });
  };

  const pacer = new Worker(PACER, { eval: true, workerData: { startMs, intervalMs, count } });
  pacer.on('message', (due: number) => {
    if (gaveUp !== undefined) return;
    while (next < due) dispatch(next++);
    if (outstanding > options.maxOutstanding) {
      gaveUp = `more than ${options.maxOutstanding} requests outstanding after ${((nowMs() - startMs) / 1000).toFixed(1)} s`;
      queue.length = 0;
      for (const connection of all) if (connection.busy) connection.destroy();
      outstanding = 0;
      void pacer.terminate();
    }
    maybeDone();
  });
  const drainLimit = new Promise<void>((resolve) => setTimeout(resolve, options.seconds * 1000 + DRAIN_MS).unref());
  await Promise.race([finished, drainLimit]);
  await pacer.terminate();
  for (const connection of all) connection.destroy();

  return {
    rate: options.rate,
    scheduled: count,
    sent,
    completed,
    errors,
    statuses,
    latencyMs: latency.percentiles(),
    serviceMs: service.percentiles(),
    sendLagMs: lag.percentiles(),
    lateSends,
    queuedSends,
    connectionsOpened,
    gaveUp: gaveUp ?? (outstanding > 0 ? `${outstanding} requests unanswered ${DRAIN_MS / 1000} s after the last send` : undefined),
    latencySamples: latency.values(),
  };
}
