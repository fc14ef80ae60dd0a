// The engine-fleet scenario's figures, targets and plot: TTFT p50/p99 over all requests and the
// light tenants' p99, output tokens per second, the engines' prefix-cache hits, per strategy; the
// targets judged against round-robin and against least-outstanding; a TTFT percentile plot.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixed, percent, ratio, table, thousands } from '../format.ts';
import { NINES, percentileCurve } from '../percentile-curve.ts';
import { quantileOf } from '../samples.ts';
import { lineChart } from '../svg-plot.ts';
import type { RequestResult } from './driver.ts';
import type { EngineFleetResults, StrategyRun } from './fleet-run.ts';
import { VLLM_LIKE } from './engine-model.ts';
import { TIME_SCALE } from './strategies.ts';
import { HEAVY_BURST, HEAVY_EVERY_MS, HEAVY_PROMPT_TOKENS, LOAD_SHARE, SYSTEM_TOKENS, THINK_MS, TURN_TOKENS, TURNS } from './workload.ts';

/** Requests sent in the first seconds meet cold prefix caches in every run alike: left out of the figures. */
const WARMUP_MS = 2_000;
const TTFT_GOAL = 0.5;
const FAIRNESS_GOAL = 1.5;
export const FLEET_PLOT_FILE = 'fleet-ttft.svg';
const FLEET_PLOT_TITLE = 'Engine fleet: TTFT by routing strategy';

export interface StrategySummary {
  readonly label: string;
  readonly requests: number;
  readonly failed: number;
  readonly ttftP50: number;
  readonly ttftP99: number;
  readonly lightP99: number;
  readonly heavyP99: number;
  readonly tokensPerSecond: number;
  readonly prefixHitShare: number;
  /** TTFT of every measured request, ms; a failed one counts as infinite. */
  readonly ttfts: Float64Array;
}

const ttftOf = (result: RequestResult) => (result.status === 200 && result.tokens > 0 ? result.ttftMs : Number.POSITIVE_INFINITY);

function sortedTtfts(results: readonly RequestResult[]): Float64Array {
  return Float64Array.from(results, ttftOf).sort();
}

export function summarize(run: StrategyRun): StrategySummary {
  const measured = run.results.filter((result) => result.sentMs >= WARMUP_MS);
  const ttfts = sortedTtfts(measured);
  const light = sortedTtfts(measured.filter((result) => result.tenant >= 0));
  const heavy = sortedTtfts(measured.filter((result) => result.tenant < 0));
  let tokens = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const result of measured) {
    tokens += result.tokens;
    first = Math.min(first, result.sentMs);
    last = Math.max(last, result.endMs);
  }
  return {
    label: run.label,
    requests: measured.length,
    failed: measured.filter((result) => !Number.isFinite(ttftOf(result))).length,
    ttftP50: quantileOf(ttfts, 0.5),
    ttftP99: quantileOf(ttfts, 0.99),
    lightP99: quantileOf(light, 0.99),
    heavyP99: quantileOf(heavy, 0.99),
    tokensPerSecond: tokens / ((last - first) / 1000),
    prefixHitShare: run.prefix.hits / run.prefix.queried,
    ttfts,
  };
}

export interface FleetTarget {
  readonly goal: string;
  readonly measured: string;
  readonly pass: boolean;
}

/** The issue's targets: engine-aware routing against round-robin and against least-outstanding, and the light tenants' fairness. */
export function fleetTargets(results: EngineFleetResults): FleetTarget[] {
  const byName = (name: string, heavy = true) => {
    const run = results.runs.find((candidate) => candidate.name === name && candidate.heavy === heavy);
    return run === undefined ? undefined : summarize(run);
  };
  const aware = byName('engine-aware');
  const alone = byName('engine-aware', false);
  if (aware === undefined) return [];
  const targets: FleetTarget[] = [];
  for (const baseline of ['round-robin', 'least-outstanding']) {
    const other = byName(baseline);
    if (other === undefined) continue;
    const ttft = aware.ttftP99 / other.ttftP99;
    const rate = aware.tokensPerSecond / other.tokensPerSecond;
    targets.push(
      { goal: `TTFT p99 ≤ ${TTFT_GOAL}× ${baseline}'s`, measured: `${fixed(aware.ttftP99, 0)} ms vs ${fixed(other.ttftP99, 0)} ms (${ratio(ttft)})`, pass: ttft <= TTFT_GOAL },
      { goal: `throughput ≥ ${baseline}'s`, measured: `${thousands(aware.tokensPerSecond)} vs ${thousands(other.tokensPerSecond)} tokens/s (${ratio(rate)})`, pass: rate >= 1 },
    );
  }
  if (alone !== undefined) {
    const fairness = aware.lightP99 / alone.lightP99;
    targets.push({
      goal: `light tenants' TTFT p99 ≤ ${FAIRNESS_GOAL}× without the heavy tenant`,
      measured: `${fixed(aware.lightP99, 0)} ms vs ${fixed(alone.lightP99, 0)} ms (${ratio(fairness)})`,
      pass: fairness <= FAIRNESS_GOAL,
    });
  }
  return targets;
}

/** Writes the TTFT plot into `directory` (docs/bench); its title and path from the repository's root. */
export function writeFleetPlot(results: EngineFleetResults, directory: string): { title: string; path: string } {
  writeFileSync(join(directory, FLEET_PLOT_FILE), lineChart({
    title: `Time to first token, ${results.engines} simulated engines at ~${percent(LOAD_SHARE)} load`,
    xLabel: 'percentile',
    yLabel: 'TTFT, ms (log)',
    xLog: true,
    yLog: true,
    xTicks: NINES.slice(0, 5),
    series: results.runs.map((run) => ({ name: run.label, points: percentileCurve(summarize(run).ttfts) })),
    note: 'Same planned workload per strategy (agent sessions over one system prompt + a heavy tenant\'s bursts); fresh engines and gateway each.',
  }));
  return { title: FLEET_PLOT_TITLE, path: `docs/bench/${FLEET_PLOT_FILE}` };
}

/**
 * What no routing can beat: a heavy burst's prompts are prefilled by the whole fleet at best, so
 * after the first prompt on each engine, the rest of the burst waits for at least the burst's whole
 * prefill spread over the engines; when those are more than 1 % of the requests, every strategy's
 * TTFT p99 is at least that.
 */
function burstFloor(results: EngineFleetResults): string {
  const roundRobin = results.runs.find((run) => run.name === 'round-robin' && run.heavy);
  if (roundRobin === undefined || results.plan.heavyCount === 0) return '';
  const floorMs = (HEAVY_BURST * HEAVY_PROMPT_TOKENS * VLLM_LIKE.prefillMsPerToken) / results.engines;
  const measured = roundRobin.results.filter((result) => result.sentMs >= WARMUP_MS);
  const heavy = measured.filter((result) => result.tenant < 0).length;
  const waitShare = (heavy * Math.max(0, HEAVY_BURST - results.engines)) / HEAVY_BURST / measured.length;
  const goal = TTFT_GOAL * summarize(roundRobin).ttftP99;
  return `\n\nThe floor under every strategy's TTFT p99: a burst's ${HEAVY_BURST} prompts of ${thousands(HEAVY_PROMPT_TOKENS)} tokens take ${fixed(floorMs, 0)} ms to prefill with all ${results.engines} engines on them (${VLLM_LIKE.prefillMsPerToken} ms a token), so whatever the routing, the ${HEAVY_BURST - results.engines} of each burst that are not first on an engine get their first token no sooner than ${fixed(floorMs, 0)} ms after it was sent. They are ${percent(waitShare)} of the measured requests${waitShare > 0.01 ? `, more than 1 %: no routing brings the p99 under ~${fixed(floorMs, 0)} ms, while ${TTFT_GOAL}× round-robin's p99 is ${fixed(goal, 0)} ms${goal < floorMs ? ', below that floor' : ''}` : ''}.`;
}

/**
 * Where the engine-aware light tenants' tail comes from: their requests sent while a heavy burst's
 * prefill still runs (within the floor's time of a burst) against the others.
 */
function burstShadow(results: EngineFleetResults): string {
  const aware = results.runs.find((run) => run.name === 'engine-aware' && run.heavy);
  if (aware === undefined || results.plan.heavyCount === 0) return '';
  const floorMs = (HEAVY_BURST * HEAVY_PROMPT_TOKENS * VLLM_LIKE.prefillMsPerToken) / results.engines;
  const measured = aware.results.filter((result) => result.sentMs >= WARMUP_MS);
  const bursts = [...new Set(measured.filter((result) => result.tenant < 0).map((result) => Math.round(result.sentMs / 100) * 100))];
  const light = measured.filter((result) => result.tenant >= 0);
  const shadowed = light.filter((result) => bursts.some((at) => result.sentMs >= at && result.sentMs < at + floorMs));
  const clear = light.filter((result) => !shadowed.includes(result));
  if (shadowed.length === 0 || clear.length === 0) return '';
  const p99 = (runs: readonly RequestResult[]) => fixed(quantileOf(sortedTtfts(runs), 0.99), 0);
  const p50 = (runs: readonly RequestResult[]) => fixed(quantileOf(sortedTtfts(runs), 0.5), 0);
  return ` With engine-aware routing, ${percent(shadowed.length / light.length)} of the light tenants' requests were sent within ${fixed(floorMs, 0)} ms of a heavy burst, while every engine prefills its share of it (the engine runs the prompts it has started before it takes new ones): their TTFT p50 ${p50(shadowed)} ms, p99 ${p99(shadowed)} ms; the others' p50 ${p50(clear)} ms, p99 ${p99(clear)} ms.`;
}

/**
 * The other way to fairness, measured: the heavy tenant on an engine of its own keeps its prefill
 * off the light tenants' engines, and its bursts then queue on one engine.
 */
function partitionNote(results: EngineFleetResults): string {
  const find = (name: string, heavy = true) => results.runs.find((run) => run.name === name && run.heavy === heavy);
  const partitioned = find('partitioned');
  const alone = find('engine-aware', false);
  const roundRobin = find('round-robin');
  if (partitioned === undefined || alone === undefined || roundRobin === undefined) return '';
  const split = summarize(partitioned);
  const baseline = summarize(alone);
  const rr = summarize(roundRobin);
  return ` Keeping the heavy tenant's prefill off the light tenants' engines altogether (the partitioned row: ${results.engines - 1} engines for the light tenants, 1 for the heavy one) gives the light tenants a p99 of ${fixed(split.lightP99, 0)} ms (${ratio(split.lightP99 / baseline.lightP99)} the run without the heavy tenant), while the heavy tenant's p99 becomes ${fixed(split.heavyP99, 0)} ms and the TTFT p99 of all requests ${fixed(split.ttftP99, 0)} ms (${ratio(split.ttftP99 / rr.ttftP99)} round-robin's): in this workload the fairness target and the TTFT target pull against each other, since what shields the light tenants is the heavy prefill kept off their engines, and what shortens the heavy tenant's wait is that prefill spread over all of them.`;
}

/** What engine-aware routing gains over round-robin on the light tenants' workload alone, where no heavy burst sets the p99. */
function lightOnlyNote(results: EngineFleetResults): string {
  const find = (name: string) => results.runs.find((run) => run.name === name && !run.heavy);
  const aware = find('engine-aware');
  const roundRobin = find('round-robin');
  if (aware === undefined || roundRobin === undefined) return '';
  const a = summarize(aware);
  const rr = summarize(roundRobin);
  return ` Without the heavy tenant, on the light tenants' sessions alone, engine-aware routing's TTFT p99 is ${fixed(a.ttftP99, 0)} ms against round-robin's ${fixed(rr.ttftP99, 0)} ms (${ratio(a.ttftP99 / rr.ttftP99)}), p50 ${fixed(a.ttftP50, 0)} against ${fixed(rr.ttftP50, 0)} ms: what the routing itself gains where no burst sets a floor under the p99.`;
}

function modelText(results: EngineFleetResults): string {
  const p = VLLM_LIKE;
  const { plan } = results;
  return `${results.engines} simulated vLLM-like engines (\`bench/fleet/engine-model.ts\`), each: at most ${p.maxBatch} requests in its batch, a FIFO queue behind it, a step of ${p.stepBaseMs} ms + ${p.stepPerSequenceMs} ms per running request (one token each), plus ${p.prefillMsPerToken} ms per prompt token prefilled in it (those not in its prefix cache), chunked prefill within ${thousands(p.maxBatchedTokens)} tokens a step (vLLM V1's scheduling: decodes first, then prefill chunks) (${thousands(p.kvBlocks)} KV blocks of 16 tokens, least recently used evicted; \`vllm:kv_cache_usage_perc\` counts the blocks of running requests, as vLLM does). About ${TIME_SCALE}× faster than a mid-size model on one GPU, so Munja polls the engines every ${Math.round(2000 / TIME_SCALE)} ms instead of 2000. Not modelled: preemption, speculative decoding, a real tokenizer (4 characters a token), stop sequences (every reply runs to \`max_tokens\`), the GPU's memory effects beyond the linear step cost.

Workload (\`bench/fleet/workload.ts\`, the same plan for every strategy): ${plan.sessionCount} agent sessions of 4 light tenants (own account and key each) started at random over ${plan.seconds} s (${fixed(plan.sessionRate, 1)} a second), ${plan.replyTokens}-token replies, ${TURNS} turns each, each turn the shared ~${thousands(SYSTEM_TOKENS)}-token system prompt (instructions and tools, as coding agents send), the conversation so far and a new ~${TURN_TOKENS}-token message (a user's or a tool's output), the session named in \`user\`, its next turn ${THINK_MS[0]}–${THINK_MS[1]} ms after its reply; one heavy tenant (own account and key) sending ${plan.heavyCount} prompts of ~${thousands(HEAVY_PROMPT_TOKENS)} tokens sharing nothing, in bursts of ${HEAVY_BURST} every ${HEAVY_EVERY_MS / 1000} s. Offered: ${percent((plan.offered.light + plan.offered.heavy) / results.engines)} of the fleet's capacity as computed for engines holding the system prompt but no conversation (light ${percent(plan.offered.light / results.engines)}, heavy ${percent(plan.offered.heavy / results.engines)}). Figures leave out requests sent in the first ${WARMUP_MS / 1000} s; a failed request counts as an infinite TTFT. At this load every strategy can serve what is offered, so output tokens per second differ mostly by when the last replies end: the throughput target checks that a strategy loses nothing.`;
}

/** The section's markdown; `plotLink`: the plot's path from the report's folder. */
export function fleetSection(results: EngineFleetResults | undefined, plotLink: string | undefined): string {
  if (results === undefined) return 'Not run.';
  const summaries = results.runs.map(summarize);
  const rows = summaries.map((summary) => [
    `**${summary.label}**`,
    `${thousands(summary.requests)}${summary.failed > 0 ? ` (${summary.failed} failed)` : ''}`,
    fixed(summary.ttftP50, 0),
    fixed(summary.ttftP99, 0),
    fixed(summary.lightP99, 0),
    fixed(summary.heavyP99, 0),
    thousands(summary.tokensPerSecond),
    percent(summary.prefixHitShare),
  ]);
  const problems = results.runs.flatMap((run) => (run.problem === undefined ? [] : [`- ${run.label}: Munja logged \`${run.problem}\``]));
  const targets = fleetTargets(results).map((target) => [target.goal, target.measured, target.pass ? 'pass' : '**miss**']);
  return `${modelText(results)}

${table(['strategy', 'requests', 'TTFT p50, ms', 'TTFT p99, ms', 'light tenants p99, ms', 'heavy tenant p99, ms', 'output tokens/s', 'prompt tokens from prefix cache'], rows)}

Targets (engine-aware, against each baseline in the same run):

${table(['target', 'measured', 'verdict'], targets, true)}${burstFloor(results)}${lightOnlyNote(results)}${burstShadow(results)}${partitionNote(results)}
${plotLink === undefined ? '' : `\n![${FLEET_PLOT_TITLE}](${plotLink})\n`}
Whole scenario: ${fixed(results.seconds, 0)} s. ${problems.length === 0 ? 'Munja logged nothing above info in any run.' : `Problems seen:\n\n${problems.join('\n')}`}`;
}
