import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/errors/api-error.ts';
import { inMessagesTerms } from '../../../../src/protocols/messages/chat-param-names.ts';

const refused = (param: string, message = `bad ${param}`) => new ApiError('unsupported_parameter', { param, message });

describe('inMessagesTerms', () => {
  it('names a chat param as the Messages request has it, in its notation and its tool indexes', () => {
    const toolIndexes = [0, 3, 4];
    const cases: Array<[string, string]> = [
      ['tools[1].function.parameters.properties.a.allOf', 'tools.3.input_schema.properties.a.allOf'],
      ['tools[2].function.parameters', 'tools.4.input_schema'],
      ['tools[0].function.name', 'tools.0.name'],
      ['tools[2].function.parameters.properties.list.items[0]', 'tools.4.input_schema.properties.list.items.0'],
      ['response_format.json_schema.schema.properties.x.pattern', 'output_config.format.schema.properties.x.pattern'],
      ['response_format', 'output_config.format'],
      ['max_completion_tokens', 'max_tokens'],
      ['stop', 'stop_sequences'],
      ['messages[2].content', 'messages'],
      ['tool_choice.function.name', 'tool_choice'],
      ['temperature', 'temperature'],
    ];
    for (const [chat, messages] of cases) {
      const error = inMessagesTerms(refused(chat), toolIndexes) as ApiError;
      expect(error.param, chat).toBe(messages);
      expect(error.message, chat).toBe(`bad ${messages}`);
      expect(error.code).toBe('unsupported_parameter');
    }
  });

  it('names the tool in the message too when the message names only its schema', () => {
    const error = inMessagesTerms(refused('tools[1].function.parameters.properties.a.allOf', 'cannot generate allOf in tools[1].function.parameters.'), [0, 3]) as ApiError;
    expect(error.message).toBe('cannot generate allOf in tools.3.input_schema.');
  });

  it('leaves alone what names no param, and what is not an API error', () => {
    const plain = new ApiError('overloaded');
    expect(inMessagesTerms(plain, [])).toBe(plain);
    const other = new Error('x');
    expect(inMessagesTerms(other, [])).toBe(other);
  });
});
