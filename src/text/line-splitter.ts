/** A line of input: whole, or too long to hold, with only its first and last bytes kept. */
export type Line = { kind: 'whole'; bytes: Buffer } | { kind: 'too_long'; length: number; head: Buffer; tail: Buffer };

const NEWLINE = 0x0a;

/** Longer lines are let go unread, by the MCP server and the run host alike: no message of ours comes near it (a view's texts are capped far below), and memory stays bounded. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Splits a byte stream into lines, holding at most `maxLineBytes` of a line. A line that grows
 * past that is let go as it arrives: only its first and last `keepBytes` are kept (where a
 * request's id may be read), and its length counted, however long it goes on.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private tooLong: { length: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    readonly maxLineBytes: number,
    private readonly keepBytes = 1024,
  ) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new TypeError(`maxLineBytes must be a positive integer, not ${maxLineBytes}`);
    }
  }

  /** The lines that `chunk` ends, in order; the rest of it waits for the next chunk. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.take(chunk.subarray(start, end));
      lines.push(this.cut());
      start = end + 1;
    }
    this.take(chunk.subarray(start));
    return lines;
  }

  /** The bytes held for the line under way. */
  get held(): number {
    return this.tooLong ? this.tooLong.head.length + this.tooLong.tail.length : this.size;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.tooLong) {
      this.tooLong.length += piece.length;
      this.tooLong.tail = lastBytes([this.tooLong.tail, piece], this.keepBytes);
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
    if (this.size <= this.maxLineBytes) return;
    this.tooLong = { length: this.size, head: firstBytes(this.parts, this.keepBytes), tail: lastBytes(this.parts, this.keepBytes) };
    this.parts = [];
    this.size = 0;
  }

  private cut(): Line {
    const line: Line = this.tooLong ? { kind: 'too_long', ...this.tooLong } : { kind: 'whole', bytes: Buffer.concat(this.parts) };
    this.parts = [];
    this.size = 0;
    this.tooLong = undefined;
    return line;
  }
}

/** A copy of the first `count` bytes of `parts`: it holds no reference to the large buffers it came from. */
function firstBytes(parts: Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  for (let left = count, i = 0; left > 0 && i < parts.length; i++) {
    kept.push(parts[i]!.subarray(0, left));
    left -= kept.at(-1)!.length;
  }
  return Buffer.from(Buffer.concat(kept));
}

/** A copy of the last `count` bytes of `parts`. */
function lastBytes(parts: Buffer[], count: number): Buffer {
  const kept: Buffer[] = [];
  for (let left = count, i = parts.length - 1; left > 0 && i >= 0; i--) {
    kept.unshift(parts[i]!.subarray(Math.max(0, parts[i]!.length - left)));
    left -= kept[0]!.length;
  }
  return Buffer.from(Buffer.concat(kept));
}
