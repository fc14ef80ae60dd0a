// Splits an SSE byte stream into whole events (each including its blank-line terminator).
// Works on bytes: events are found with Buffer.indexOf and passed on as slices, never decoded.

const LF_LF = Buffer.from('\n\n');
const CRLF_CRLF = Buffer.from('\r\n\r\n');

export class SseEventSplitter {
  #pending: Buffer | null = null;
  #delimiter: Buffer | null = null;

  /** Calls onEvent for each event completed by this chunk; keeps an incomplete tail for later. */
  push(chunk: Buffer, onEvent: (event: Buffer) => void): void {
    let data = chunk;
    if (this.#pending !== null) {
      data = Buffer.concat([this.#pending, chunk]);
      this.#pending = null;
    }
    // The first line ending decides the framing (vLLM, llama.cpp, OpenAI use \n; some use \r\n).
    if (this.#delimiter === null) {
      const lf = data.indexOf(10);
      if (lf === -1) {
        this.#pending = data;
        return;
      }
      this.#delimiter = lf > 0 && data[lf - 1] === 13 ? CRLF_CRLF : LF_LF;
    }
    const delimiter = this.#delimiter;
    let start = 0;
    // Not searched again once the events end with the data, as they usually do (indexOf is a native call).
    while (start < data.length) {
      const end = data.indexOf(delimiter, start);
      if (end === -1) break;
      const next = end + delimiter.length;
      // A read that is one whole event (an SSE server sends each as a chunk) is passed as it is: a view costs ~100 B.
      onEvent(start === 0 && next === data.length ? data : data.subarray(start, next));
      start = next;
    }
    if (start < data.length) this.#pending = Buffer.from(data.subarray(start));
  }
}
