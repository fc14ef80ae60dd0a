// The built-in local engine: a deterministic, seedable text simulator (not a language model).
import { countPromptTokens, splitIntoPieces } from '../tokens/count-tokens.ts';
import type { EngineChoice, EngineMessage, EngineResult, EngineTask } from './engine-types.ts';
import { createRandom, hashText, mixSeed, randomSeed, seedHalves } from './prng.ts';
import { takeSchemaMs } from './schema-cache.ts';
import { checkOutput, checkStructure } from './structured-check.ts';
import { callsTools, jsonText, type StructuredTurn, toolCallChoice } from './structured-reply.ts';
import { composeReply } from './text-composer.ts';
import { cumulativeWeights } from './word-sampler.ts';
import { languageTables, type LanguageTables } from './word-tables.ts';

/** A natural reply is 20–120 tokens: the prompt picks part of the length, the seed the rest. */
const MIN_REPLY_TOKENS = 20;
const PROMPT_LENGTH_SPREAD = 31;
const RANDOM_LENGTH_SPREAD = 70;

interface ChoiceShape {
  readonly tables: LanguageTables;
  readonly functionWeights: Float64Array;
  readonly contentWeights: Float64Array;
  readonly promptHash: number;
}

/**
 * Pure apart from drawing a random seed when `task.seed` is null. `knownPromptTokens` skips
 * re-counting a prompt the caller has already counted.
 */
export function generate(task: EngineTask, knownPromptTokens?: number): EngineResult {
  const promptTokens = knownPromptTokens ?? countPromptTokens(task.messages);
  if (task.structure === undefined) return { promptTokens, choices: generateChoices(task) };
  takeSchemaMs(); // what an earlier task that failed left uncounted is not this one's
  const checked = checkStructure(task.structure);
  if ('code' in checked) return { promptTokens, choices: [], refusal: checked, schemaMs: takeSchemaMs() };
  const choices = generateChoices(checked.generation === task.structure ? task : { ...task, structure: checked.generation });
  const refusal = checkOutput(choices, checked, task.stop);
  const schemaMs = takeSchemaMs();
  return refusal === null ? { promptTokens, choices, schemaMs } : { promptTokens, choices: [], refusal, schemaMs };
}

function generateChoices(task: EngineTask): EngineChoice[] {
  const promptHash = hashMessages(task.messages);
  const tables = languageTables(task.language);
  const shape: ChoiceShape = {
    tables,
    functionWeights: cumulativeWeights(task.language, 'function', tables.functionPool.words.length, task.temperature, task.topP),
    contentWeights: cumulativeWeights(task.language, 'content', tables.contentPool.words.length, task.temperature, task.topP),
    promptHash,
  };

  const choices: EngineChoice[] = [];
  if (task.temperature <= 0) {
    // Temperature 0 is deterministic in the prompt alone, so every choice is the same reply.
    const only = generateChoice(task, shape, mixSeed(promptHash));
    for (let index = 0; index < task.n; index++) choices.push(only);
  } else {
    const [seedLow, seedHigh] = seedHalves(task.seed ?? randomSeed());
    for (let index = 0; index < task.n; index++) {
      choices.push(generateChoice(task, shape, mixSeed(promptHash, seedLow, seedHigh, index)));
    }
  }
  return choices;
}

function generateChoice(task: EngineTask, shape: ChoiceShape, seed: number): EngineChoice {
  const random = createRandom(seed);
  if (task.structure !== undefined) {
    const turn: StructuredTurn = { structure: task.structure, random, words: shape.tables.contentPool.words, maxTokens: task.maxTokens };
    if (callsTools(turn)) return toolCallChoice(turn);
    if (task.structure.json) return textChoice(jsonText(turn), task.stop, task.maxTokens);
  }
  const targetTokens =
    MIN_REPLY_TOKENS + (shape.promptHash % PROMPT_LENGTH_SPREAD) + Math.floor(random() * RANDOM_LENGTH_SPREAD);
  let longestStop = 0;
  for (const stop of task.stop) longestStop = Math.max(longestStop, stop.length);
  const reply = composeReply({
    tables: shape.tables,
    functionWeights: shape.functionWeights,
    contentWeights: shape.contentWeights,
    random,
    targetTokens,
    // Every token is at least one character, so `longestStop` tokens past max_tokens reveal a stop
    // sequence that begins within it.
    capTokens: task.maxTokens + 1 + longestStop,
    maxTokens: task.maxTokens,
  });

  if (longestStop > 0) {
    const text = reply.pieces.join('');
    if (firstStop(text, task.stop) !== null) return textChoice(text, task.stop, task.maxTokens);
  }
  if (reply.cut === null) return { pieces: reply.pieces, finishReason: 'stop', completionTokens: reply.tokens };
  return { pieces: reply.pieces.slice(0, reply.cut.pieces), finishReason: 'length', completionTokens: reply.cut.tokens };
}

/** Text cut at the first stop sequence and at max_tokens. */
function textChoice(text: string, stops: readonly string[], maxTokens: number): EngineChoice {
  const stop = firstStop(text, stops);
  const { pieces, tokenCount, truncated } = splitIntoPieces(stop === null ? text : text.slice(0, stop.at), maxTokens);
  if (truncated) return { pieces, finishReason: 'length', completionTokens: tokenCount };
  return stop === null ? { pieces, finishReason: 'stop', completionTokens: tokenCount } : { pieces, finishReason: 'stop', completionTokens: tokenCount, stopSequence: stop.sequence };
}

/** The stop sequence that occurs first in `text` (the longest of those starting there), or null. */
function firstStop(text: string, stops: readonly string[]): { at: number; sequence: string } | null {
  let first: { at: number; sequence: string } | null = null;
  for (const stop of stops) {
    if (stop.length === 0) continue;
    const at = text.indexOf(stop);
    if (at !== -1 && (first === null || at < first.at || (at === first.at && stop.length > first.sequence.length))) first = { at, sequence: stop };
  }
  return first;
}

function hashMessages(messages: readonly EngineMessage[]): number {
  let hash = hashText('');
  for (const message of messages) {
    hash = hashText(message.content, hashText('\u0000', hashText(message.role, hash)));
  }
  return hash;
}
