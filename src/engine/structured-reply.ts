// The local engine's turn when a request has tools or a response format: tool calls whose arguments
// validate against each function's parameters, or JSON content (valid against the format's schema),
// or, when the engine answers in prose, nothing (the caller composes text). Deterministic per seed.
import { countTextTokens, splitIntoPieces } from '../tokens/count-tokens.ts';
import type { EngineChoice, EngineStructure, EngineTool, EngineToolCall } from './engine-types.ts';
import type { Random } from './prng.ts';
import { valueFor } from './schema-values.ts';

/** Under tool_choice `auto` on a user turn, this share of seeds calls a tool and the rest answer. */
const AUTO_CALL_CHANCE = 2 / 3;
/** With parallel calls allowed, a second call follows with this chance, and a third after it. */
const ANOTHER_CALL_CHANCE = 0.3;
const MAX_PARALLEL_CALLS = 3;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A json_object reply without a schema: this many members at most. */
const MAX_JSON_MEMBERS = 4;

export interface StructuredTurn {
  readonly structure: EngineStructure;
  readonly random: Random;
  readonly words: readonly string[];
  readonly maxTokens: number;
}

/** Whether this choice calls tools: always with `required` or a named tool, on some seeds with `auto`. */
export function callsTools(turn: StructuredTurn): boolean {
  const { tools, toolChoice, endsWithToolResult } = turn.structure;
  if (tools.length === 0 || toolChoice === 'none') return false;
  if (toolChoice !== 'auto') return true;
  return !endsWithToolResult && turn.random() < AUTO_CALL_CHANCE;
}

export function toolCallChoice(turn: StructuredTurn): EngineChoice {
  const { structure, random } = turn;
  const named = typeof structure.toolChoice === 'object' ? structure.toolChoice.name : null;
  let count = 1;
  if (named === null && structure.parallelToolCalls) while (count < MAX_PARALLEL_CALLS && random() < ANOTHER_CALL_CHANCE) count++;
  const calls: EngineToolCall[] = [];
  let used = 0;
  for (let index = 0; index < count; index++) {
    const tool = named === null ? structure.tools[Math.floor(random() * structure.tools.length)]! : findTool(structure.tools, named);
    const id = callId(random);
    const nameTokens = countTextTokens(tool.name);
    const { pieces, tokenCount, truncated } = splitIntoPieces(JSON.stringify(valueFor(tool.parameters, turn)), Math.max(0, turn.maxTokens - used - nameTokens));
    calls.push({ id, name: tool.name, argumentPieces: pieces });
    used += nameTokens + tokenCount;
    // As OpenAI does: the arguments are cut where max_tokens ran out, and the choice ends there.
    if (truncated) return { pieces: [], finishReason: 'length', completionTokens: used, toolCalls: calls };
  }
  return { pieces: [], finishReason: 'tool_calls', completionTokens: used, toolCalls: calls };
}

/** JSON content as text: an object valid against the schema, or a small object of words. */
export function jsonText(turn: StructuredTurn): string {
  const schema = turn.structure.jsonSchema;
  return JSON.stringify(schema === null ? looseObject(turn) : valueFor(schema, turn));
}

function looseObject(turn: StructuredTurn): Record<string, unknown> {
  const { random, words } = turn;
  const object: Record<string, unknown> = {};
  const members = 1 + Math.floor(random() * MAX_JSON_MEMBERS);
  for (let index = 0; index < members; index++) {
    const key = words[Math.floor(random() * words.length)] ?? `key${index}`;
    const kind = random();
    const value = kind < 0.5 ? words[Math.floor(random() * words.length)] ?? '' : kind < 0.8 ? Math.floor(random() * 1000) : random() < 0.5;
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

function findTool(tools: readonly EngineTool[], name: string): EngineTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new TypeError('tool_choice names a tool that is not in tools.');
  return tool;
}

/** `call_` and 24 letters and digits, like OpenAI's, from the choice's randomness. */
function callId(random: Random): string {
  let id = 'call_';
  for (let index = 0; index < 24; index++) id += ID_ALPHABET[Math.floor(random() * ID_ALPHABET.length)];
  return id;
}
