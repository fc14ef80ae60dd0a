// chat.completion.chunk payloads. Everything constant within one stream (id, created, model)
// is serialised once; per chunk only the choice is serialised.
import type { FinishReason } from '../engine/engine-types.ts';
import type { Usage } from './usage.ts';

export class ChatChunks {
  readonly #head: string;
  readonly #tail: string;
  readonly #usageHead: string;

  constructor(id: string, created: number, model: string, includeUsage: boolean) {
    this.#head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[`;
    this.#tail = includeUsage ? '],"usage":null}' : ']}';
    this.#usageHead = `${this.#head}],"usage":`;
  }

  /** The first chunk: the role, once per choice; `callsTools[i]`: choice i calls tools, so its content is null. */
  role(choices: number, callsTools?: readonly boolean[]): string {
    let body = '';
    for (let index = 0; index < choices; index++) {
      if (index > 0) body += ',';
      const content = callsTools?.[index] === true ? 'null' : '""';
      body += `{"index":${index},"delta":{"role":"assistant","content":${content}},"logprobs":null,"finish_reason":null}`;
    }
    return this.#head + body + this.#tail;
  }

  /** A tool call's first chunk, as OpenAI sends it: its index, id and name, and empty arguments. */
  toolCall(index: number, call: number, id: string, name: string): string {
    return `${this.#head}{"index":${index},"delta":{"tool_calls":[{"index":${call},"id":${JSON.stringify(id)},"type":"function","function":{"name":${JSON.stringify(name)},"arguments":""}}]},"logprobs":null,"finish_reason":null}${this.#tail}`;
  }

  /** A fragment of a tool call's arguments. */
  toolArguments(index: number, call: number, fragment: string): string {
    return `${this.#head}{"index":${index},"delta":{"tool_calls":[{"index":${call},"function":{"arguments":${JSON.stringify(fragment)}}}]},"logprobs":null,"finish_reason":null}${this.#tail}`;
  }

  content(index: number, text: string): string {
    return `${this.#head}{"index":${index},"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}${this.#tail}`;
  }

  /** `stopSequence`: the one that ended the choice, as vLLM reports it (`stop_reason`). */
  finish(index: number, reason: FinishReason, stopSequence?: string): string {
    const stop = stopSequence === undefined ? '' : `,"stop_reason":${JSON.stringify(stopSequence)}`;
    return `${this.#head}{"index":${index},"delta":{},"logprobs":null,"finish_reason":"${reason}"${stop}}${this.#tail}`;
  }

  /** The final chunk of a stream whose client asked for usage: no choices. */
  usage(usage: Usage): string {
    return `${this.#usageHead}${JSON.stringify(usage)}}`;
  }
}
