import { freeBytes } from './free-bytes.js';
import { SplitPairs } from './surrogate-pairs.js';

const EMPTY = Buffer.alloc(0);
/** The first buffer's size; each is an ArrayBuffer of its own (`allocUnsafeSlow`), so that `freeBytes` can free it. */
const MIN_BYTES = 4096;

/**
 * Text encoded as UTF-8 as it comes, into one buffer of this object's own that grows as it fills,
 * the smaller one freed at once. The text's strings then die young: held until their batch is written
 * or their answer is read, they would outlive V8's young collections and stay until a full
 * collection. The text comes in pieces, a stream's events, which
 * may part a surrogate pair: a first half at a piece's end waits for the next piece (SplitPairs),
 * so that the pair is encoded as its one character, whatever `take` comes between.
 */
export class Utf8Bytes {
  private buffer = EMPTY;
  private readonly pairs = new SplitPairs();
  /** The bytes gathered. */
  size = 0;

  /** `maxBytes`: no more is ever appended, so the buffer never grows past it. */
  constructor(private readonly maxBytes = Infinity) {}

  /** Appends `text`; returns how many UTF-16 code units it encoded (a first half held back waits for the next piece). */
  append(text: string): number {
    const piece = this.pairs.join(text);
    this.encode(piece);
    return piece.length;
  }

  /** The text has ended: a first half still held back goes in too, which has no other half (UTF-8 makes it U+FFFD). */
  end(): void {
    this.encode(this.pairs.end());
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

  /** The bytes are let go, and a half held back: nothing reads them again. */
  free(): void {
    this.pairs.end();
    freeBytes(this.take());
  }

  private encode(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a pair, two units, takes 4).
    this.reserve(text.length * 3);
    this.size += this.buffer.write(text, this.size);
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
