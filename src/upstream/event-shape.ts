// The shape of an upstream's content events, learned from one of them: the text before a delta's
// string value and the text after it. A model server writes every content delta of a stream the
// same way (same id, created, model and keys), only the delta's text differs, so the events that
// fit the shape need no key search: where the model is, that there is no usage, and that the event
// carries text are all known from the event the shape was learned from.
//
// An event fits when it is the head, then a string body with no quote and no trailing backslash,
// then the tail (which opens with the closing quote). The bytes up to the value are the same as the
// learned event's, so a JSON reader is in the same place when it reaches the value; the value ends
// at the same quote, and the rest is the same again. The event therefore has the same keys in the
// same places. A delta with a quote in its text takes the full search, as does an empty one.

const BACKSLASH = 92;

export class EventShape {
  readonly #head: string;
  readonly #tail: string;
  /** Where the model key to rewrite begins and its value ends, both in the head; -1 when none. */
  readonly modelAt: number;
  readonly modelEnd: number;

  private constructor(head: string, tail: string, modelAt: number, modelEnd: number) {
    this.#head = head;
    this.#tail = tail;
    this.modelAt = modelAt;
    this.modelEnd = modelEnd;
  }

  /**
   * The shape of `event` (read as latin1 in `text`) around the string value whose opening quote is
   * at `valueAt`, or null when that value does not end at its first quote. The model range must
   * lie before the value. The head and tail are copied from the bytes so that a shape does not
   * keep the upstream read's whole text alive.
   */
  static learn(event: Buffer, text: string, valueAt: number, modelAt: number, modelEnd: number): EventShape | null {
    const close = text.indexOf('"', valueAt + 1);
    if (close === -1 || text.charCodeAt(close - 1) === BACKSLASH) return null;
    return new EventShape(event.toString('latin1', 0, valueAt + 1), event.toString('latin1', close), modelAt, modelEnd);
  }

  /**
   * True when `text` is the head, a non-empty string body with no quote in it, and the tail.
   * Compared by indexOf and lastIndexOf from fixed positions: the optimiser turns startsWith and
   * endsWith into a loop over the characters, ~4 ns each on a slice of a read (~600 ns an event
   * here), and comparing slices with === allocates two strings per event.
   */
  fits(text: string): boolean {
    const head = this.#head;
    const tail = this.#tail;
    const end = text.length - tail.length;
    if (end <= head.length || text.indexOf(tail, end) !== end || text.lastIndexOf(head, 0) !== 0) return false;
    return text.indexOf('"', head.length) === end && text.charCodeAt(end - 1) !== BACKSLASH;
  }
}
