// Splits an SSE byte stream into whole events (each including its blank-line terminator), passed
// on as slices of the bytes with their text read as latin1: one character per byte, so a position
// in the text is one in the bytes. A read is decoded once, and its events and their keys are then
// found by V8's string search, which costs a fraction of a Buffer.indexOf call (a call into Node):
// 23-36 against 100-120 ns to find the end of a 188-byte event.

export type OnEvent = (event: Buffer, text: string) => void;

export class SseEventSplitter {
  #pending: Buffer | null = null;
  #delimiter: string | null = null;

  /** Calls onEvent for each event completed by this chunk; keeps an incomplete tail for later. */
  push(chunk: Buffer, onEvent: OnEvent): void {
    let data = chunk;
    if (this.#pending !== null) {
      data = Buffer.concat([this.#pending, chunk]);
      this.#pending = null;
    }
    const text = data.toString('latin1');
    // The first line ending decides the framing (vLLM, llama.cpp, OpenAI use \n; some use \r\n).
    if (this.#delimiter === null) {
      const lf = text.indexOf('\n');
      if (lf === -1) {
        this.#pending = data;
        return;
      }
      this.#delimiter = lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n\r\n' : '\n\n';
    }
    const delimiter = this.#delimiter;
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf(delimiter, start);
      if (end === -1) break;
      const next = end + delimiter.length;
      // A read that is one whole event (an SSE server sends each as a chunk) is passed as it is: a view costs ~100 B.
      if (start === 0 && next === text.length) onEvent(data, text);
      else onEvent(data.subarray(start, next), text.slice(start, next));
      start = next;
    }
    if (start < data.length) this.#pending = Buffer.from(data.subarray(start));
  }
}
