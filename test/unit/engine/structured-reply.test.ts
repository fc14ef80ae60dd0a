import { describe, expect, it } from 'vitest';
import type { EngineStructure, EngineTask } from '../../../src/engine/engine-types.ts';
import { generate } from '../../../src/engine/local-engine.ts';
import { countTextTokens } from '../../../src/tokens/count-tokens.ts';
import { expectValid } from '../../helpers/schema-validator.ts';

const PARAMETERS = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['city', 'days', 'tags'],
  additionalProperties: false,
};
const TOOLS: EngineStructure = {
  tools: [{ name: 'get_weather', parameters: PARAMETERS }, { name: 'get_time', parameters: { type: 'object', properties: {} } }],
  toolChoice: 'required',
  parallelToolCalls: true,
  endsWithToolResult: false,
  json: false,
  jsonSchema: null,
};
const TASK: EngineTask = {
  messages: [{ role: 'user', content: 'Weather in Rijeka?' }],
  language: 'hr',
  seed: 11,
  temperature: 1,
  topP: 1,
  maxTokens: 4096,
  n: 4,
  stop: [],
  structure: TOOLS,
};

describe('structured replies of the local engine', () => {
  it('calls tools with arguments valid against their parameters, and counts their tokens', () => {
    for (const choice of generate(TASK).choices) {
      expect(choice.finishReason).toBe('tool_calls');
      expect(choice.pieces).toEqual([]);
      let tokens = 0;
      for (const call of choice.toolCalls!) {
        const args = call.argumentPieces.join('');
        expectValid(call.name === 'get_weather' ? PARAMETERS : { type: 'object' }, JSON.parse(args));
        tokens += countTextTokens(call.name) + countTextTokens(args);
      }
      expect(choice.completionTokens).toBe(tokens);
    }
  });

  it('cuts the arguments where max_tokens runs out, with finish_reason length', () => {
    const result = generate({ ...TASK, maxTokens: 6, structure: { ...TOOLS, toolChoice: { name: 'get_weather' } } });
    for (const choice of result.choices) {
      expect(choice.finishReason).toBe('length');
      expect(choice.completionTokens).toBeLessThanOrEqual(6);
      expect(() => JSON.parse(choice.toolCalls![0]!.argumentPieces.join(''))).toThrow();
    }
  });

  it('answers in text after tool results under auto, and never calls with none', () => {
    for (const structure of [{ ...TOOLS, toolChoice: 'auto' as const, endsWithToolResult: true }, { ...TOOLS, toolChoice: 'none' as const }]) {
      for (const choice of generate({ ...TASK, structure }).choices) {
        expect(choice.toolCalls).toBeUndefined();
        expect(choice.finishReason).toBe('stop');
        expect(choice.pieces.join('').length).toBeGreaterThan(0);
      }
    }
  });

  it('gives JSON content valid against the response format, cut by max_tokens like text', () => {
    const structure: EngineStructure = { ...TOOLS, tools: [], toolChoice: 'none', json: true, jsonSchema: PARAMETERS };
    for (const choice of generate({ ...TASK, structure }).choices) {
      expect(choice.finishReason).toBe('stop');
      expectValid(PARAMETERS, JSON.parse(choice.pieces.join('')));
    }
    const loose = generate({ ...TASK, structure: { ...structure, jsonSchema: null } }).choices[0]!;
    expect(JSON.parse(loose.pieces.join(''))).toBeTypeOf('object');
    const cut = generate({ ...TASK, maxTokens: 3, structure }).choices[0]!;
    expect(cut.finishReason).toBe('length');
    expect(cut.completionTokens).toBeLessThanOrEqual(3);
  });
});
