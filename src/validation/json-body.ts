// A JSON request body: its value, and its text as the client sent it (decoded) with the spans of
// its root object that a relay splices (scan-json-text.ts's RootSpans). Sending the text on with
// the model swapped in costs a copy; serialising the parsed value again walked every message,
// about a nanosecond a byte: microseconds for a long prompt.
import type { RootSpans } from './scan-json-text.ts';

export class JsonBody implements RootSpans {
  readonly value: unknown;
  readonly text: string;
  readonly modelStart: number;
  readonly modelEnd: number;
  readonly streamOptionsStart: number;
  readonly streamOptionsEnd: number;
  readonly closingBrace: number;

  constructor(value: unknown, text: string, spans: RootSpans) {
    this.value = value;
    this.text = text;
    this.modelStart = spans.modelStart;
    this.modelEnd = spans.modelEnd;
    this.streamOptionsStart = spans.streamOptionsStart;
    this.streamOptionsEnd = spans.streamOptionsEnd;
    this.closingBrace = spans.closingBrace;
  }
}
