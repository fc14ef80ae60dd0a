// Byte ranges collected for one write: the events of one upstream read, with our own bytes in
// between (a rewritten model), joined when they are written, so that the client gets them as one
// write (one HTTP chunk) rather than a write per piece. A range is kept as its buffer and bounds,
// not as a view (a Buffer view is ~100 B of heap), in lists that keep their storage from one read
// to the next.
import { OutputBuffer } from '../http/output-buffer.ts';

/**
 * Ranges are joined in one buffer shared by every stream: uWS copies what write() is given before
 * it returns (into its cork buffer, the socket, or its own backpressure buffer), so the buffer is
 * free again at once. A fresh copy per write would be a slice of Node's buffer pool or external
 * memory of its own, and such copies piled up between full collections in the soak (see
 * stream-event-filter.ts). A join larger than the cap gets a buffer of its own.
 */
const sharedJoin = new OutputBuffer(64 * 1024, 4096);
const SHARED_JOIN_MAX_BYTES = 1024 * 1024;

const NO_BYTES = Buffer.alloc(0);

export class ByteBatch {
  // Range i is buffers[i] from bounds[2i] to bounds[2i + 1]. The lists only grow: the slots past
  // `count` are spare, their buffers dropped so that a batch holds nothing once written.
  readonly #buffers: Buffer[] = [];
  readonly #bounds: number[] = [];
  #count = 0;

  get empty(): boolean {
    return this.#count === 0;
  }

  /** Adds `bytes` from `start` to `end` (the rest of it by default). */
  add(bytes: Buffer, start = 0, end = bytes.length): void {
    if (start === end) return;
    const index = this.#count++;
    this.#buffers[index] = bytes;
    this.#bounds[2 * index] = start;
    this.#bounds[2 * index + 1] = end;
  }

  /**
   * The ranges as one buffer, and the batch emptied. A single whole buffer is handed back as it
   * is; anything else is copied into the shared buffer, valid only until the next take().
   */
  take(): Uint8Array {
    const count = this.#count;
    const buffers = this.#buffers;
    const bounds = this.#bounds;
    this.#count = 0;
    if (count === 0) return NO_BYTES;
    const first = buffers[0]!;
    if (count === 1 && bounds[0] === 0 && bounds[1] === first.length) {
      buffers[0] = NO_BYTES;
      return first;
    }
    let total = 0;
    for (let index = 0; index < count; index++) total += bounds[2 * index + 1]! - bounds[2 * index]!;
    const shared = total <= SHARED_JOIN_MAX_BYTES;
    if (shared && total > sharedJoin.bytes.length) sharedJoin.grow(total);
    const target = shared ? sharedJoin.bytes : Buffer.allocUnsafeSlow(total);
    let offset = 0;
    for (let index = 0; index < count; index++) {
      const bytes = buffers[index]!;
      buffers[index] = NO_BYTES;
      const start = bounds[2 * index]!;
      const end = bounds[2 * index + 1]!;
      bytes.copy(target, offset, start, end); // copy() takes the bounds: set() would need a view of the range
      offset += end - start;
    }
    return shared ? sharedJoin.prefix(total) : target;
  }
}
