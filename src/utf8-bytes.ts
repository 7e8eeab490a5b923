import { freeBytes } from './free-bytes.js';

const EMPTY = Buffer.alloc(0);
/** The first buffer's size; each is an ArrayBuffer of its own (`allocUnsafeSlow`), so that `freeBytes` can free it. */
const MIN_BYTES = 4096;

/**
 * Text encoded as UTF-8 as it comes, into one buffer of this object's own that grows as it fills,
 * the smaller one freed at once. The text's strings die young: held until their batch is written
 * or their answer is read, they would outlive V8's young collections, and only a full collection
 * frees the old generation (bench/RESULTS.md). The caller joins a surrogate pair split between two
 * pieces before it appends (SplitPairs): each piece is encoded on its own.
 */
export class Utf8Bytes {
  private buffer = EMPTY;
  /** The bytes gathered. */
  size = 0;

  /** `maxBytes`: no more is ever appended, so the buffer never grows past it. */
  constructor(private readonly maxBytes = Infinity) {}

  append(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a pair, two units, takes 4).
    this.reserve(text.length * 3);
    this.size += this.buffer.write(text, this.size);
  }

  /** The bytes gathered, handed over (the taker frees them, `freeBytes`, once written); the next start a new buffer. */
  take(): Buffer {
    const taken = this.buffer.subarray(0, this.size);
    this.buffer = EMPTY;
    this.size = 0;
    return taken;
  }

  text(): string {
    return this.buffer.toString('utf8', 0, this.size);
  }

  /** The bytes are let go: nothing reads them again. */
  free(): void {
    freeBytes(this.take());
  }

  private reserve(bytes: number): void {
    if (this.size + bytes <= this.buffer.length) return;
    const size = Math.max(this.size + bytes, Math.min(Math.max(2 * this.buffer.length, MIN_BYTES), this.maxBytes));
    const larger = Buffer.allocUnsafeSlow(size);
    this.buffer.copy(larger, 0, 0, this.size);
    freeBytes(this.buffer);
    this.buffer = larger;
  }
}
