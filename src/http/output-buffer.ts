// A buffer written anew for each piece of output that uWS copies before its call returns (a header
// block, a stream's joined events), so that one buffer serves every response. What uWS is handed
// is a view of its first bytes; a view is ~100 B of heap, so the views of the usual lengths are
// made once and kept.

export class OutputBuffer {
  #bytes: Buffer;
  /** #views[n]: the first n bytes of #bytes, for n below #maxKeptView. */
  #views: (Buffer | undefined)[] = [];
  readonly #maxKeptView: number;

  constructor(sizeBytes: number, maxKeptView: number) {
    this.#bytes = Buffer.allocUnsafeSlow(sizeBytes);
    this.#maxKeptView = maxKeptView;
  }

  get bytes(): Buffer {
    return this.#bytes;
  }

  /** Makes it at least `sizeBytes` long (at least twice as long as it was), keeping its first `keepBytes`. */
  grow(sizeBytes: number, keepBytes = 0): void {
    const larger = Buffer.allocUnsafeSlow(Math.max(sizeBytes, this.#bytes.length * 2));
    this.#bytes.copy(larger, 0, 0, keepBytes);
    this.#bytes = larger;
    this.#views = [];
  }

  /** Its first `length` bytes. */
  prefix(length: number): Buffer {
    if (length >= this.#maxKeptView) return this.#bytes.subarray(0, length);
    return (this.#views[length] ??= this.#bytes.subarray(0, length));
  }
}
