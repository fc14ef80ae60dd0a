// The agent-like workload, planned ahead from a seed so that every strategy gets the same one:
// - light tenants: multi-turn sessions of an agent whose every request starts with the same long
//   system prompt (its instructions and tool definitions), then the conversation so far, then the
//   next message; a session's next turn goes out a think time after its last reply (closed
//   within a session), sessions start at random (open loop, Poisson). As in an agent's loop, the
//   conversation (tool outputs and all) soon outweighs the system prompt. Each session names itself in
//   `user`; sessions are dealt to the light tenants in turn, each tenant its own account and key.
// - one heavy tenant, its own account and key: bursts of long prompts that share nothing.
// The session rate is set so that the whole offers `LOAD_SHARE` of the fleet's capacity, as the
// engine model computes it for a fleet whose engines all hold the system prompt but no
// conversation's history (what load-blind routing gets, near enough).
import type { EngineParams } from './engine-model.ts';
import { promptOf, replyToken } from './engine-server.ts';
import { tokensOf } from './prefix-cache.ts';

export const LOAD_SHARE = 0.8;
export const LIGHT_TENANTS = 4;
// The light sessions' shape follows what coding agents send (Codex CLI and Claude Code requests as
// captured): a first request of 27,000–40,000 characters (about 6,700–10,000 tokens) of
// instructions and tool definitions before the user's first words, then the whole history resent
// every turn, each tool call and its output appended. Tool outputs vary from a line to a file;
// 400 tokens stands for a typical one, and a session runs 12 turns (an agent's loop of tool calls).
export const SYSTEM_TOKENS = 8_000;
/** A turn's new message: the user's words or a tool's output. */
export const TURN_TOKENS = 400;
export const TURNS = 12;
const REPLY_TOKENS = 32;
export const THINK_MS = [150, 450] as const;
export const HEAVY_PROMPT_TOKENS = 3_000;
export const HEAVY_BURST = 8;
export const HEAVY_EVERY_MS = 2_000;
const HEAVY_FIRST_MS = 1_000;

export interface Message {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface SessionPlan {
  readonly id: string;
  readonly tenant: number;
  readonly startMs: number;
  readonly userMessages: readonly string[];
  readonly thinkMs: readonly number[];
}

export interface HeavyPlan {
  readonly atMs: number;
  readonly prompt: string;
}

export interface WorkloadPlan {
  readonly seconds: number;
  readonly system: string;
  readonly replyTokens: number;
  readonly sessions: readonly SessionPlan[];
  readonly heavy: readonly HeavyPlan[];
  /** Light sessions started per second. */
  readonly sessionRate: number;
  /** What the plan offers, in engine-seconds per second over all engines, light and heavy. */
  readonly offered: { readonly light: number; readonly heavy: number };
}

/** mulberry32: a small seeded generator, so that the plan is the same for every strategy. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 're', 'tu', 'sa', 'ne', 'vo', 'di', 'pa', 'ze', 'gu'];

/** Text of about `tokens` tokens (4 characters each) of made-up words. */
function text(random: () => number, tokens: number): string {
  let out = '';
  while (out.length < tokens * 4) out += `${SYLLABLES[Math.floor(random() * SYLLABLES.length)]}${SYLLABLES[Math.floor(random() * SYLLABLES.length)]} `;
  return out.slice(0, tokens * 4);
}

/** The reply every turn gets from the engine (it always runs to max_tokens). */
export const expectedReply = (tokens: number) => Array.from({ length: tokens }, (_, index) => replyToken(index)).join('');

/** The messages of a session's turn `turn` (from 0), given the replies before it. */
export function turnMessages(system: string, session: SessionPlan, turn: number, replies: readonly string[]): Message[] {
  const messages: Message[] = [{ role: 'system', content: system }];
  for (let before = 0; before < turn; before++) {
    messages.push({ role: 'user', content: session.userMessages[before]! }, { role: 'assistant', content: replies[before]! });
  }
  messages.push({ role: 'user', content: session.userMessages[turn]! });
  return messages;
}

/** Engine-seconds a request costs on an engine at full batch, its first `cachedTokens` prompt tokens cached. */
function costSeconds(params: EngineParams, promptTokens: number, cachedTokens: number, replyTokens: number): number {
  const decodePerToken = (params.stepBaseMs + params.stepPerSequenceMs * params.maxBatch) / params.maxBatch;
  return (replyTokens * decodePerToken + params.prefillMsPerToken * (promptTokens - cachedTokens)) / 1000;
}

export function planWorkload(params: EngineParams, engines: number, seconds: number, seed = 1): WorkloadPlan {
  const random = seeded(seed);
  const system = `You are a coding agent. Tools and rules follow. ${text(random, SYSTEM_TOKENS)}`;
  const systemTokens = tokensOf(promptOf([{ role: 'system', content: system }]));
  const heavy: HeavyPlan[] = [];
  for (let at = HEAVY_FIRST_MS; at < seconds * 1000; at += HEAVY_EVERY_MS) {
    for (let i = 0; i < HEAVY_BURST; i++) heavy.push({ atMs: at, prompt: text(random, HEAVY_PROMPT_TOKENS) });
  }
  const heavyOffered = heavy.reduce((sum, request) => sum + costSeconds(params, tokensOf(promptOf([{ role: 'user', content: request.prompt }])), 0, REPLY_TOKENS), 0) / seconds;

  const reply = expectedReply(REPLY_TOKENS);
  const sessionCost = (session: SessionPlan) => {
    let cost = 0;
    for (let turn = 0; turn < TURNS; turn++) {
      const prompt = promptOf(turnMessages(system, session, turn, new Array<string>(turn).fill(reply)));
      cost += costSeconds(params, tokensOf(prompt), systemTokens, REPLY_TOKENS);
    }
    return cost;
  };
  const newSession = (index: number, startMs: number): SessionPlan => ({
    id: `session-${index}`,
    tenant: index % LIGHT_TENANTS,
    startMs,
    userMessages: Array.from({ length: TURNS }, () => text(random, TURN_TOKENS)),
    thinkMs: Array.from({ length: TURNS }, () => THINK_MS[0] + random() * (THINK_MS[1] - THINK_MS[0])),
  });
  // The rate from one sample session's cost (they differ only in their words' lengths).
  const sampleCost = sessionCost(newSession(-1, 0));
  const lightBudget = Math.max(0, LOAD_SHARE * engines - heavyOffered);
  const sessionRate = lightBudget / sampleCost;
  const sessions: SessionPlan[] = [];
  for (let at = -Math.log(1 - random()) / sessionRate; at < seconds; at += -Math.log(1 - random()) / sessionRate) {
    sessions.push(newSession(sessions.length, at * 1000));
  }
  const lightOffered = sessions.reduce((sum, session) => sum + sessionCost(session), 0) / seconds;
  return { seconds, system, replyTokens: REPLY_TOKENS, sessions, heavy, sessionRate, offered: { light: lightOffered, heavy: heavyOffered } };
}

/** The same plan without the heavy tenant. */
export const withoutHeavy = (plan: WorkloadPlan): WorkloadPlan => ({ ...plan, heavy: [], offered: { ...plan.offered, heavy: 0 } });
