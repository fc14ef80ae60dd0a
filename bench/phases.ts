// The measurements made on every target, side by side: saturation, streaming, paced latency,
// stream delivery and throughput against connections; each bounded in time.
import { type ClosedLoopOptions, type ClosedLoopResult, type RunContext, runClosedLoop } from './closed-loop.ts';
import { type DeliveryResult, runDelivery } from './delivery.ts';
import type { MunjaLog } from './munja-log.ts';
import { ResourceWatch } from './resource-watch.ts';
import { runLoad } from './load.ts';
import { type PacedResult, runPaced } from './paced-load.ts';
import { chatJson, chatRequest, chatStream, type Scenario, type Target, type TargetName } from './scenarios/index.ts';
import type { Settings } from './settings.ts';

export interface TargetRun {
  readonly name: TargetName;
  readonly label: string;
  /** Why the target was not measured (a peer that is not installed). */
  readonly skipped?: string;
  readonly json?: ClosedLoopResult;
  readonly stream?: ClosedLoopResult;
  readonly paced: readonly PacedResult[];
  readonly delivery?: DeliveryResult;
  readonly sweep: readonly ClosedLoopResult[];
}

const PACED_CONNECTIONS = 64;
const DELIVERY_STREAMS = 10;

export const say = (text: string) => process.stdout.write(text);

const figure = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');

export async function closedLoop(scenario: Scenario, target: Target, options: ClosedLoopOptions, context: RunContext): Promise<ClosedLoopResult> {
  say(`bench: ${target.name} ${scenario.id} (${options.connections} conns, ${options.warmupSeconds} s + ${options.seconds} s) … `);
  const result = await runClosedLoop(scenario, target, options, context);
  const cpu = target.pids.length === 0 ? '' : `, ${figure((result.usage.cpuSeconds * 1e6) / Math.max(1, result.load.responses))} µs CPU/req`;
  say(`${figure(result.load.requestsPerSecond)} req/s${cpu}${result.checkProblem === undefined ? '' : `, CHECK FAILED: ${result.checkProblem}`}\n`);
  return result;
}

/**
 * Waits (up to 30 s) until the target's processes use less than 5 % of a core: a target that fell
 * behind a paced run is still working off the requests it was sent.
 */
async function waitUntilIdle(target: Target, context: RunContext): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const watch = new ResourceWatch(context.ticksPerSecond, target.pids);
    watch.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (watch.stop().cpuSeconds < 0.025) return;
  }
}

export async function paced(target: Target, rate: number, seconds: number, context: RunContext): Promise<PacedResult> {
  const request = chatRequest(target, 'json', false);
  const options = { rate, connections: PACED_CONNECTIONS, maxOutstanding: rate };
  say(`bench: ${target.name} paced ${rate}/s (1 s + ${seconds} s) … `);
  const warmUp = await runPaced(request, { ...options, seconds: 1 });
  if (warmUp.gaveUp !== undefined) await waitUntilIdle(target, context);
  const watch = new ResourceWatch(context.ticksPerSecond, target.pids);
  watch.start();
  const result = { ...(await runPaced(request, { ...options, seconds })), steal: watch.stop().steal };
  if (result.gaveUp !== undefined) await waitUntilIdle(target, context);
  const ok = result.statuses['200'] ?? 0;
  say(`p50 ${result.latencyMs.p50.toFixed(3)} ms, p99 ${result.latencyMs.p99.toFixed(3)} ms, ${ok}/${result.scheduled} ok, ${result.lateSends} late sends, ${(result.steal * 100).toFixed(0)} % stolen${result.gaveUp === undefined ? '' : `, GAVE UP: ${result.gaveUp}`}\n`);
  return result;
}

/**
 * Load the target gets before anything is measured on it: a freshly started Node process needs a
 * few seconds of traffic before its hot code is optimised, and a first run would pay for that.
 */
export async function warmUp(target: Target, settings: Settings, context: RunContext): Promise<void> {
  if (settings.targetWarmupSeconds === 0) return;
  say(`bench: ${target.name} warm-up (${settings.targetWarmupSeconds} s)\n`);
  const options = { connections: settings.connections, expectStatus: 200, tempDir: context.tempDir, ...(context.loaderCpus === undefined ? {} : { cpus: context.loaderCpus }) };
  await runLoad(context.tool, chatRequest(target, 'json', false), { ...options, seconds: Math.ceil(settings.targetWarmupSeconds / 2) });
  await runLoad(context.tool, chatRequest(target, 'stream', true), { ...options, seconds: Math.ceil(settings.targetWarmupSeconds / 2) });
}

export async function measureTarget(target: Target, settings: Settings, context: RunContext, log?: MunjaLog): Promise<TargetRun> {
  await warmUp(target, settings, context);
  const base = { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, ...(log === undefined ? {} : { log }) };
  const json = await closedLoop(chatJson, target, base, context);
  const stream = await closedLoop(chatStream, target, base, context);
  const pacedRuns: PacedResult[] = [];
  if (!settings.skip.has('paced')) for (const rate of settings.rates) pacedRuns.push(await paced(target, rate, settings.pacedSeconds, context));
  let delivery: DeliveryResult | undefined;
  if (!settings.skip.has('delivery')) {
    say(`bench: ${target.name} stream delivery (${DELIVERY_STREAMS} paced streams, ${settings.deliverySeconds} s) … `);
    delivery = await runDelivery(target, { seconds: settings.deliverySeconds, concurrency: DELIVERY_STREAMS });
    say(`p50 ${delivery.deliveryMs.p50.toFixed(3)} ms, p99 ${delivery.deliveryMs.p99.toFixed(3)} ms, first event p50 ${delivery.firstEventMs.p50.toFixed(2)} ms, ${delivery.failedStreams}/${delivery.streams} streams failed\n`);
  }
  const sweep: ClosedLoopResult[] = [];
  if (!settings.skip.has('sweep')) {
    for (const connections of settings.sweep) {
      sweep.push(await closedLoop(chatJson, target, { seconds: settings.sweepSeconds, warmupSeconds: 1, connections, ...(log === undefined ? {} : { log }) }, context));
    }
  }
  return { name: target.name, label: target.label, json, stream, paced: pacedRuns, ...(delivery === undefined ? {} : { delivery }), sweep };
}
