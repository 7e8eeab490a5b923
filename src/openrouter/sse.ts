import { UpstreamError } from '../errors.js';

/**
 * The longest line (and the most data one event may gather) we accept, in characters.
 * One event carries one chunk of JSON; even a proxy that sends a whole answer as one
 * chunk stays far below this (an answer of a million tokens is about 4 Mi characters,
 * 8 Mi once JSON-escaped). Past it, the stream is broken or hostile: we stop reading
 * rather than hold it all in memory.
 */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Server-sent events, reduced to what chat completions use: the `data:` payload of each
 * event. Comments (`: OPENROUTER PROCESSING`) and other fields are skipped. Linear in the
 * input: each chunk is scanned once, and a line that spans chunks is kept in pieces until
 * its newline arrives.
 */
export async function* sseData(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  const partial = new PartialLine();
  const event = new EventData();
  for await (const chunk of chunks) {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline !== -1; newline = chunk.indexOf('\n', start)) {
      const data = event.take(partial.finish(chunk.slice(start, newline)));
      if (data !== undefined) yield data;
      start = newline + 1;
    }
    partial.add(chunk.slice(start));
  }
  // The last line may lack its newline, and the last event its blank line.
  const rest = partial.finish('');
  if (rest !== '') event.take(rest);
  const last = event.take('');
  if (last !== undefined) yield last;
}

/** The start of a line whose newline has not arrived yet, in the pieces it came in. */
class PartialLine {
  private pieces: string[] = [];
  private length = 0;

  add(piece: string): void {
    if (piece === '') return;
    this.length += piece.length;
    if (this.length > MAX_LINE_CHARS) throw tooLong('a line');
    this.pieces.push(piece);
  }

  /** The whole line, ending with `end`, without its line ending. */
  finish(end: string): string {
    this.add(end);
    // Most lines come whole in one read: no copy then.
    const line = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join('');
    this.pieces = [];
    this.length = 0;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }
}

/** The data lines of the event being read. */
class EventData {
  private lines: string[] = [];
  private length = 0;

  /** Reads one line; at a blank line, returns the event's data if it had any. */
  take(line: string): string | undefined {
    if (line === '') {
      const data = this.lines.length > 1 ? this.lines.join('\n') : this.lines[0];
      this.lines = [];
      this.length = 0;
      return data;
    }
    if (!line.startsWith('data:')) return undefined;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    this.length += value.length + 1;
    if (this.length > MAX_LINE_CHARS) throw tooLong('an event');
    this.lines.push(value);
    return undefined;
  }
}

function tooLong(what: string): UpstreamError {
  return new UpstreamError({
    kind: 'bad_body',
    message: `the stream sent ${what} longer than ${MAX_LINE_CHARS / 1024 / 1024} Mi characters without ending it`,
  });
}
