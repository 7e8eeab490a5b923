import { UpstreamError } from '../errors.js';

/**
 * The longest line (and the most data one event may gather) we accept, in characters.
 * One event carries one chunk of JSON; even a proxy that sends a whole answer as one
 * chunk stays far below this (an answer of a million tokens is about 4 Mi characters,
 * 8 Mi once JSON-escaped). Past it, the stream is broken or hostile: we stop reading
 * rather than hold it all in memory.
 */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
/** `data:`, byte by byte. */
const DATA = [0x64, 0x61, 0x74, 0x61, 0x3a];
const NOTHING = Buffer.alloc(0);
/** The carry's first size (an event of chat completions is a few hundred bytes), and the most it keeps between lines. */
const MIN_PARTIAL_BYTES = 1024;
const KEPT_PARTIAL_BYTES = 64 * 1024;

/**
 * Server-sent events read straight from the body's bytes, reduced to what chat completions
 * use: the `data:` payload of each event, handed to `onData` as it completes. Comments
 * (`: OPENROUTER PROCESSING`) and other fields are skipped.
 *
 * Lines are found on bytes: a newline byte is never part of a multibyte UTF-8 character, so a
 * payload's bytes are whole characters and are decoded once, as one string, which is exactly
 * what one streaming decoder over the body would give. A line that spans reads is copied into
 * a buffer of the parser's own until its newline, so the work stays linear, and no read is held
 * past its turn: a read is a slice of the socket's 64 KiB, and a slice kept while the stream
 * waits for its next read outlives V8's young collections, its memory freed only at a full one.
 */
export class SseParser {
  /** The start of a line whose newline has not arrived yet: its first `partialBytes` bytes. */
  private partial = NOTHING;
  private partialBytes = 0;
  /** Its length in characters, counted only once its bytes pass the cap (bytes are never fewer). */
  private partialChars = 0;
  /** The data of the event being read, undefined until its first data line. */
  private data: string | undefined;
  private stopped = false;

  /** `onData` gets each event's data; when it returns false, the parser reads nothing more. */
  constructor(private readonly onData: (data: string) => boolean) {}

  /** Reads one network read; false once `onData` has asked to stop. Throws UpstreamError past the cap. */
  push(chunk: Uint8Array): boolean {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let newline = bytes.indexOf(LF); newline !== -1 && !this.stopped; newline = bytes.indexOf(LF, start)) {
      if (this.partialBytes === 0) this.line(bytes, start, newline);
      else this.wholeLine(this.finishPartial(bytes.subarray(start, newline)));
      start = newline + 1;
    }
    if (!this.stopped && start < bytes.length) this.addPartial(bytes.subarray(start));
    return !this.stopped;
  }

  /** The body has ended: the last line may lack its newline, and the last event its blank line. */
  end(): void {
    if (this.stopped) return;
    if (this.partialBytes > 0) this.wholeLine(this.finishPartial(NOTHING));
    if (!this.stopped) this.wholeLine(NOTHING);
  }

  private wholeLine(bytes: Buffer): void {
    this.line(bytes, 0, bytes.length);
  }

  /** One line, `bytes[start, end)`, without its newline. */
  private line(bytes: Buffer, start: number, end: number): void {
    if (end - start > MAX_LINE_CHARS && utf16Length(bytes.subarray(start, end)) > MAX_LINE_CHARS) throw tooLong('a line');
    if (end > start && bytes[end - 1] === CR) end--;
    if (end === start) {
      this.dispatch();
      return;
    }
    if (!isDataLine(bytes, start, end)) return;
    let from = start + DATA.length;
    if (from < end && bytes[from] === SPACE) from++;
    // No encoding named is UTF-8, without the lookup of the encoding's name on every event.
    const value = bytes.toString(undefined, from, end);
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    if (this.data.length > MAX_LINE_CHARS) throw tooLong('an event');
  }

  /** A blank line: the event ends, and its data (if it had any) goes to `onData`. */
  private dispatch(): void {
    const data = this.data;
    this.data = undefined;
    if (data !== undefined) this.stopped = !this.onData(data);
  }

  private addPartial(piece: Buffer): void {
    this.reservePartial(piece.length);
    piece.copy(this.partial, this.partialBytes);
    this.partialBytes += piece.length;
    if (this.partialBytes <= MAX_LINE_CHARS) return;
    // Counted from here on, piece by piece, so that each byte is counted once.
    this.partialChars += utf16Length(this.partialChars === 0 ? this.partial.subarray(0, this.partialBytes) : piece);
    if (this.partialChars > MAX_LINE_CHARS) throw tooLong('a line');
  }

  /** The partial line ending with `end`, read before the next push, which reuses its buffer. */
  private finishPartial(end: Buffer): Buffer {
    this.addPartial(end);
    const line = this.partial.subarray(0, this.partialBytes);
    this.partialBytes = 0;
    this.partialChars = 0;
    return line;
  }

  /** Room for `bytes` more; a buffer grown past a long line's size is let go once that line is done. */
  private reservePartial(bytes: number): void {
    if (this.partialBytes === 0 && this.partial.length > KEPT_PARTIAL_BYTES) this.partial = NOTHING;
    if (this.partialBytes + bytes <= this.partial.length) return;
    const larger = Buffer.allocUnsafeSlow(Math.max(this.partialBytes + bytes, 2 * this.partial.length, MIN_PARTIAL_BYTES));
    this.partial.copy(larger, 0, 0, this.partialBytes);
    this.partial = larger;
  }
}

function isDataLine(bytes: Buffer, start: number, end: number): boolean {
  if (end - start < DATA.length) return false;
  for (let i = 0; i < DATA.length; i++) if (bytes[start + i] !== DATA[i]) return false;
  return true;
}

/**
 * The length, in UTF-16 code units as JavaScript counts a string, of the text these UTF-8
 * bytes decode to: one per character, two for a character past U+FFFF (a 4-byte one).
 */
function utf16Length(bytes: Buffer): number {
  let length = 0;
  for (const byte of bytes) {
    if ((byte & 0xc0) !== 0x80) length++;
    if (byte >= 0xf0) length++;
  }
  return length;
}

function tooLong(what: string): UpstreamError {
  return new UpstreamError({
    kind: 'bad_body',
    message: `the stream sent ${what} longer than ${MAX_LINE_CHARS / 1024 / 1024} Mi characters without ending it`,
  });
}
