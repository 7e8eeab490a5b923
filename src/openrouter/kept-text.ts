import { Utf8Bytes } from '../text/utf8-bytes.js';

/**
 * Text gathered from many small pieces, kept up to `limit` characters, as UTF-8 until it is read
 * (Utf8Bytes), decoded once then and its bytes freed. A character split between two events is
 * kept whole; a first half of a pair with no other half (UTF-8 has no lone surrogates) reads as
 * U+FFFD, as it does from the answer's file.
 */
export class KeptText {
  private readonly bytes: Utf8Bytes;
  /** The text, once read. */
  private decoded: string | undefined;
  /** The characters kept, in UTF-16 code units, as JavaScript counts a string's length. */
  length = 0;

  constructor(private readonly limit: number) {
    this.bytes = new Utf8Bytes(3 * limit);
  }

  add(text: string): void {
    const room = this.limit - this.length;
    if (room <= 0 || text === '') return;
    const kept = room >= text.length ? text : text.slice(0, room);
    this.length += kept.length;
    this.bytes.append(kept);
  }

  /** The text kept, read once it is all there: its bytes are freed then. */
  text(): string {
    if (this.decoded === undefined) {
      this.bytes.end();
      this.decoded = this.bytes.text();
      this.bytes.free();
    }
    return this.decoded;
  }
}
