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

/**
 * Server-sent events read straight from the body's bytes, reduced to what chat completions
 * use: the `data:` payload of each event, handed to `onData` as it completes. Comments
 * (`: OPENROUTER PROCESSING`) and other fields are skipped.
 *
 * Lines are found on bytes: a newline byte is never part of a multibyte UTF-8 character, so a
 * payload's bytes are whole characters and are decoded once, as one string, which is exactly
 * what one streaming decoder over the body would give. A line that spans reads is carried as
 * the byte pieces it came in and joined once at its newline, so the work stays linear.
 */
export class SseParser {
  /** The start of a line whose newline has not arrived yet, in the pieces it came in. */
  private partial: Buffer[] = [];
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
    if (end === start) return this.dispatch();
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
    this.partial.push(piece);
    this.partialBytes += piece.length;
    if (this.partialBytes <= MAX_LINE_CHARS) return;
    // Counted from here on, piece by piece, so that each byte is counted once.
    this.partialChars += this.partialChars === 0 ? this.partial.reduce((sum, part) => sum + utf16Length(part), 0) : utf16Length(piece);
    if (this.partialChars > MAX_LINE_CHARS) throw tooLong('a line');
  }

  /** The partial line ending with `end`, as one Buffer; the carry is emptied. */
  private finishPartial(end: Buffer): Buffer {
    this.addPartial(end);
    const line = this.partial.length === 1 ? this.partial[0]! : Buffer.concat(this.partial, this.partialBytes);
    this.partial = [];
    this.partialBytes = 0;
    this.partialChars = 0;
    return line;
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
