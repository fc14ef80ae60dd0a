// The report's tables of the fresh-process rounds (rounds.ts): one row per round, then the median
// and range of each column, ratios and differences taken within each round.
import { BASELINE_ALLOCATION } from './allocation/baseline.ts';
import { type ClosedLoopResult, cpuPerRequestUs } from './closed-loop.ts';
import { fixed, ms, ratio, signedMs, table, thousands } from './format.ts';
import type { PacedResult } from './paced-load.ts';
import { addedOverFloorMs, budgetsToOff, floorToNginxStreams, localToRelay, protocolStreamToChat, protocolToChat, munjaToDirect, munjaToFloorCpu, munjaToFloorStreams, munjaToFloorThroughput, munjaToNginx, munjaToNginxStreams, type Round, ROUND_RATE, spreadOf } from './rounds.ts';

const us = (result: ClosedLoopResult | undefined) => (result === undefined ? Number.NaN : cpuPerRequestUs(result));
const whole = (value: number) => fixed(value, 0);
const bytes = (value: number | undefined) => thousands(value);
/** A difference from addedOverFloorMs: +Infinity is a round in which Munja fell behind. */
const signedOrBehind = (value: number | undefined) => (value === Number.POSITIVE_INFINITY ? 'fell behind' : signedMs(value));

/** The median and range of `values` as one cell (signed figures read better with "to" than a dash). */
function over(values: readonly number[], show: (value: number) => string, to = '–', keepInfinite = false): string {
  const spread = spreadOf(values, keepInfinite);
  return spread === undefined ? '—' : `${show(spread.median)} (${show(spread.min)}${to}${show(spread.max)})`;
}

export function roundsCpuTable(rounds: readonly Round[] | undefined): string {
  if (rounds === undefined || rounds.length === 0) return 'Not run.';
  const withNginx = (value: number, nginx: number) => `${fixed(value, 0)}${Number.isFinite(nginx) ? ` (${ratio(value / nginx)})` : ''}`;
  const rows = rounds.map((round, index) => {
    const [nginx, floor, munja] = [us(round.nginx), us(round.floor.saturated), us(round.munja.saturated)];
    const direct = round.direct.load.requestsPerSecond;
    const [floorRate, munjaRate] = [round.floor.saturated.load.requestsPerSecond, round.munja.saturated.load.requestsPerSecond];
    return [String(index + 1), fixed(nginx, 0), withNginx(floor, nginx), withNginx(munja, nginx), ratio(munja / floor), fixed(munja - floor, 0), thousands(direct), `${thousands(floorRate)} (${fixed(floorRate / direct, 2)})`, `${thousands(munjaRate)} (${fixed(munjaRate / floorRate, 2)})`];
  });
  rows.push([
    '**median (range)**',
    over(rounds.map((round) => us(round.nginx)), whole),
    over(rounds.map((round) => us(round.floor.saturated) / us(round.nginx)), ratio),
    over(munjaToNginx(rounds), ratio),
    over(munjaToFloorCpu(rounds), ratio),
    over(rounds.map((round) => us(round.munja.saturated) - us(round.floor.saturated)), whole),
    over(rounds.map((round) => round.direct.load.requestsPerSecond), thousands),
    over(rounds.map((round) => round.floor.saturated.load.requestsPerSecond / round.direct.load.requestsPerSecond), ratio),
    over(munjaToFloorThroughput(rounds), ratio),
  ]);
  const munjaOverDirect = spreadOf(munjaToDirect(rounds));
  return `${table(['round', 'nginx CPU µs/req', 'floor relay µs/req (× nginx)', 'Munja µs/req (× nginx)', 'Munja ÷ floor', 'Munja − floor µs/req', 'direct req/s', 'floor req/s (× direct)', 'Munja req/s (× floor)'], rows)}

Munja's throughput against the mock called directly: median ${ratio(munjaOverDirect?.median)}.`;
}

const percentiles = (paced: PacedResult | undefined) => (paced === undefined ? '—' : paced.gaveUp !== undefined ? `fell behind (${paced.gaveUp})` : `${ms(paced.latencyMs.p50)} / ${ms(paced.latencyMs.p99)}`);

export function roundsLatencyTable(rounds: readonly Round[] | undefined): string {
  if (rounds === undefined || rounds.length === 0) return 'Not run.';
  const [p50, p99] = [addedOverFloorMs(rounds, 'p50'), addedOverFloorMs(rounds, 'p99')];
  const locals = localToRelay(rounds);
  const rows = rounds.map((round, index) => [
    String(index + 1),
    percentiles(round.floor.paced),
    percentiles(round.munja.paced),
    `${signedOrBehind(p50[index])} / ${signedOrBehind(p99[index])}`,
    bytes(round.floor.allocation?.bytesPerRequest),
    bytes(round.munja.allocation?.bytesPerRequest),
    round.local === undefined ? '—' : `${fixed(us(round.local), 0)} (${ratio(locals[index])})`,
    thousands(round.local?.load.requestsPerSecond),
  ]);
  const paced = (pick: (round: Round) => PacedResult | undefined, percentile: 'p50' | 'p99') => rounds.map((round) => {
    const run = pick(round);
    return run === undefined || run.gaveUp !== undefined ? Number.NaN : run.latencyMs[percentile];
  });
  const pair = (a: string, b: string) => (a === '—' && b === '—' ? '—' : `${a} / ${b}`);
  rows.push([
    '**median**',
    pair(over(paced((round) => round.floor.paced, 'p50'), ms), over(paced((round) => round.floor.paced, 'p99'), ms)),
    pair(over(paced((round) => round.munja.paced, 'p50'), ms), over(paced((round) => round.munja.paced, 'p99'), ms)),
    pair(over(p50, signedOrBehind, ' to ', true), over(p99, signedOrBehind, ' to ', true)),
    over(rounds.map((round) => round.floor.allocation?.bytesPerRequest ?? Number.NaN), bytes),
    over(rounds.map((round) => round.munja.allocation?.bytesPerRequest ?? Number.NaN), bytes),
    over(rounds.map((round) => us(round.local)), whole) + (spreadOf(locals) === undefined ? '' : ` (${ratio(spreadOf(locals)!.median)})`),
    over(rounds.map((round) => round.local?.load.requestsPerSecond ?? Number.NaN), thousands),
  ]);
  const counted = rounds.find((round) => round.munja.allocation !== undefined)?.munja.allocation?.requests;
  return `${table(['round', `floor p50 / p99 ms at ${thousands(ROUND_RATE)}/s`, 'Munja p50 / p99 ms', 'Munja − floor p50 / p99 ms', 'floor heap B/req', 'Munja heap B/req', 'local `fast` µs/req (× Munja relay)', 'local `fast` req/s'], rows)}

Paced: ${thousands(ROUND_RATE)} req/s from the scheduled send time, after 1 s at the same rate, on each fresh process after its saturation run. Heap B/req: bytes allocated on the V8 heap per request${counted === undefined ? '' : ` over ${thousands(counted)} requests (16 keep-alive connections, closed loop)`}, counted by V8's own accounting (bench/allocation/probe.ts, loaded with \`--import\`: the heap in use before each collection minus after the one before, plus the growth since the last); buffers outside the V8 heap are not in it. The allocation target's baseline, ${thousands(BASELINE_ALLOCATION.bytesPerRequest)} B, was measured the same way on commit ${BASELINE_ALLOCATION.commit} (${BASELINE_ALLOCATION.date}), before the hot path was optimised (\`npm run bench:allocation -- --checkout DIR\`). Local \`fast\`: a fresh Munja that also serves the local engine (\`fast\`, no simulated latency), a non-streaming completion with \`max_tokens: 16\`, saturated on one core like the relay (engine threads included in its CPU), warmed up on that request; × Munja relay is over the same round's relayed request.`;
}

/** CPU per 100-chunk stream, nginx and Munja, per round; empty when the rounds ran none. */
export function roundsStreamTable(rounds: readonly Round[] | undefined): string {
  if (rounds === undefined || rounds.every((round) => round.munja.streams === undefined)) return '';
  const msOf = (result: ClosedLoopResult | undefined) => us(result) / 1000;
  const ratios = munjaToNginxStreams(rounds);
  const floorRatios = floorToNginxStreams(rounds);
  const overFloor = munjaToFloorStreams(rounds);
  const rows = rounds.map((round, index) => [
    String(index + 1),
    ms(msOf(round.nginxStreams)),
    `${ms(msOf(round.floor.streams))} (${ratio(floorRatios[index])})`,
    ms(msOf(round.munja.streams)),
    ratio(ratios[index]),
    ratio(overFloor[index]),
  ]);
  rows.push([
    '**median (range)**',
    over(rounds.map((round) => msOf(round.nginxStreams)), ms),
    over(floorRatios, ratio),
    over(rounds.map((round) => msOf(round.munja.streams)), ms),
    over(ratios, ratio),
    over(overFloor, ratio),
  ]);
  return `Streams (100-chunk SSE streams, 50 connections, saturated), CPU per stream in ms:

${table(['round', 'nginx ms/stream', 'floor relay ms/stream (× nginx)', 'Munja ms/stream', 'Munja ÷ nginx', 'Munja ÷ floor'], rows)}`;
}

/** The other protocols' CPU beside chat's, on each round's Munja process; empty when the rounds ran none. */
export function roundsProtocolsTable(rounds: readonly Round[] | undefined): string {
  if (rounds === undefined || rounds.every((round) => round.protocols === undefined)) return '';
  const ratios = [
    protocolToChat(rounds, (runs) => runs.responsesJson),
    protocolToChat(rounds, (runs) => runs.messagesJson),
    protocolStreamToChat(rounds, (runs) => runs.responsesStream),
    protocolStreamToChat(rounds, (runs) => runs.messagesStream),
  ];
  const msOf = (result: ClosedLoopResult | undefined) => us(result) / 1000;
  const rows = rounds.map((round, index) => [
    String(index + 1),
    whole(us(round.munja.saturated)),
    `${whole(us(round.protocols?.responsesJson))} (${ratio(ratios[0]![index])})`,
    `${whole(us(round.protocols?.messagesJson))} (${ratio(ratios[1]![index])})`,
    ms(msOf(round.munja.streams)),
    `${ms(msOf(round.protocols?.responsesStream))} (${ratio(ratios[2]![index])})`,
    `${ms(msOf(round.protocols?.messagesStream))} (${ratio(ratios[3]![index])})`,
  ]);
  rows.push([
    '**median (range)**',
    over(rounds.map((round) => us(round.munja.saturated)), whole),
    over(ratios[0]!, ratio),
    over(ratios[1]!, ratio),
    over(rounds.map((round) => msOf(round.munja.streams)), ms),
    over(ratios[2]!, ratio),
    over(ratios[3]!, ratio),
  ]);
  return `Other protocols: the same relayed request (the same mock reply, 100 chunks on streams) sent as a Responses API and as a Messages API request to the round's Munja process after its chat runs, translated to chat and back; CPU per request, × the same process's chat figure:

${table(['round', 'chat µs/req', 'Responses µs/req (× chat)', 'Messages µs/req (× chat)', 'chat ms/stream', 'Responses ms/stream (× chat)', 'Messages ms/stream (× chat)'], rows)}`;
}

/** Budgets on beside off, chat JSON requests on fresh processes of each round; empty when the rounds ran none. */
export function roundsBudgetsTable(rounds: readonly Round[] | undefined): string {
  if (rounds === undefined || rounds.every((round) => round.budgets === undefined)) return '';
  const ratios = budgetsToOff(rounds);
  const rows = rounds.map((round, index) => [String(index + 1), whole(us(round.munja.saturated)), `${whole(us(round.budgets))} (${ratio(ratios[index]!)})`]);
  rows.push(['**median (range)**', over(rounds.map((round) => us(round.munja.saturated)), whole), over(ratios, ratio)]);
  return `Budgets: the chat JSON request on a fresh Munja whose relayed models have a price and whose key has a budget that never binds (each request reserves its worst case and settles its cost), beside the round's Munja without budgets; CPU per request:

${table(['round', 'budgets off µs/req', 'budgets on µs/req (× off)'], rows)}`;
}
