// Tool schemas the local engine has not seen, each near the 64 KiB cap: compiling one costs a few
// hundred ms of engine CPU, so a request with many of them runs past the engine's task deadline.
import { randomUUID } from 'node:crypto';

export interface CostlyTool {
  readonly name: string;
  readonly parameters: Record<string, unknown>;
}

export function distinctSchema(chars: number): Record<string, unknown> {
  const tag = randomUUID().slice(0, 8);
  const properties: Record<string, unknown> = {};
  for (let index = 0; JSON.stringify(properties).length < chars; index++) {
    properties[`p${tag}_${index}`] = { type: 'object', properties: { a: { type: 'string', maxLength: 20 }, b: { type: 'integer', minimum: 0 }, c: { enum: ['x', 'y'] } }, required: ['a'] };
  }
  return { type: 'object', properties };
}

export function costlyTools(count: number): CostlyTool[] {
  return Array.from({ length: count }, (_, index) => ({ name: `tool_${index}`, parameters: distinctSchema(60_000) }));
}
