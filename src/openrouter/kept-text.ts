import { freeBytes } from '../free-bytes.js';
import { SplitPairs } from '../surrogate-pairs.js';

/**
 * Text gathered from many small pieces, kept up to `limit` characters, as UTF-8 in one Buffer
 * that grows as it fills, and decoded once, when it is read. So a streamed answer's pieces die
 * young: held as strings until the answer ends, they would outlive V8's young collections and be
 * copied into its old generation, which only a full collection frees (bench/RESULTS.md).
 *
 * A piece that ends in the first half of a surrogate pair keeps that half back for the next
 * piece, so a character split between two events is kept whole. A half with no other half (UTF-8
 * has no lone surrogates) reads as U+FFFD, as it would from the answer's file.
 */
export class KeptText {
  private bytes = EMPTY;
  private used = 0;
  private readonly pairs = new SplitPairs();
  /** The text, once read: the bytes are let go then. */
  private decoded: string | undefined;
  /** The characters kept, in UTF-16 code units, as JavaScript counts a string's length. */
  length = 0;

  constructor(private readonly limit: number) {}

  add(text: string): void {
    const room = this.limit - this.length;
    if (room <= 0 || text === '') return;
    const kept = room >= text.length ? text : text.slice(0, room);
    this.length += kept.length;
    const piece = this.pairs.join(kept);
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a pair, two units, takes 4).
    this.reserve(piece.length * 3);
    this.used += this.bytes.write(piece, this.used);
  }

  /** The text kept, read once it is all there: its bytes are let go then. */
  text(): string {
    if (this.decoded === undefined) {
      const text = this.bytes.toString('utf8', 0, this.used);
      this.decoded = this.pairs.held === '' ? text : `${text}\uFFFD`;
      freeBytes(this.bytes);
      this.bytes = EMPTY;
      this.used = 0;
    }
    return this.decoded;
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const size = Math.max(this.used + bytes, Math.min(Math.max(2 * this.bytes.length, MIN_BYTES), 3 * this.limit));
    const larger = Buffer.allocUnsafe(size);
    this.bytes.copy(larger, 0, 0, this.used);
    freeBytes(this.bytes);
    this.bytes = larger;
  }
}

const EMPTY = Buffer.alloc(0);

/** The first buffer's size: past half of Node's pool (8 KiB), so that no kept text holds a pool slab. */
const MIN_BYTES = 4096;
