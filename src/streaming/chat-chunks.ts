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

  /** The first chunk: the role, once per choice. */
  role(choices: number): string {
    let body = '';
    for (let index = 0; index < choices; index++) {
      if (index > 0) body += ',';
      body += `{"index":${index},"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}`;
    }
    return this.#head + body + this.#tail;
  }

  content(index: number, text: string): string {
    return `${this.#head}{"index":${index},"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}${this.#tail}`;
  }

  finish(index: number, reason: FinishReason): string {
    return `${this.#head}{"index":${index},"delta":{},"logprobs":null,"finish_reason":"${reason}"}${this.#tail}`;
  }

  /** The final chunk of a stream whose client asked for usage: no choices. */
  usage(usage: Usage): string {
    return `${this.#usageHead}${JSON.stringify(usage)}}`;
  }
}
