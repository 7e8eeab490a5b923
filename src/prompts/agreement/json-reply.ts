import { JsonStringDecoder } from './json-string.js';
import { SectionSplitter, type SplitReply } from './section.js';

/** The key of the answer in the object the schema asks for. */
const ANSWER_KEY = 'answer';

/** A reply that was asked for as one JSON object: what came of it. */
export type JsonSplit =
  /** It did not begin with `{`: a model that ignored the response format, read as a section reply. */
  | { kind: 'plain'; split: SplitReply }
  | {
      kind: 'object';
      /** The answer's text as far as it came. */
      answer: string;
      /** `no`: the object has no "answer" string, so `rest` is the whole reply. */
      answered: 'no' | 'cut' | 'whole';
      /** The reply with the answer's string emptied (`"answer": ""`): the account and the object around it. */
      rest: string;
    };

/**
 * Reads `{"answer": "…", "agreement": {…}}` as it streams: the answer's string is decoded as it
 * arrives and passed on, so a long answer is never held twice (as JSON and as text); only the rest
 * of the object, the short account, is kept as written, to be parsed at the end.
 */
export class JsonReplySplitter {
  private mode: 'start' | 'object' | 'plain' = 'start';
  private leading = '';
  private readonly plain = new SectionSplitter();
  private readonly answerParts: string[] = [];
  private answer: JsonStringDecoder | undefined;
  private answered: 'no' | 'cut' | 'whole' = 'no';
  private readonly rest: string[] = [];
  // Where the scan of the object's own text stands.
  private depth = 0;
  /** The object's closing brace has come: what follows it is not read. */
  private closed = false;
  private inString = false;
  private escaped = false;
  private expectKey = false;
  /** The key being read (as written, escapes and all), while in a key's string. */
  private key: string | undefined;
  private lastKey = '';

  constructor(private readonly onAnswer: (piece: string) => void = () => undefined) {}

  push(piece: string): void {
    if (this.mode === 'plain') {
      this.plain.push(piece);
      return;
    }
    if (this.closed) return;
    if (this.mode === 'start') {
      const first = piece.search(/\S/);
      if (first === -1) {
        this.leading += piece;
        return;
      }
      if (piece[first] !== '{') {
        this.mode = 'plain';
        this.plain.push(this.leading + piece);
        return;
      }
      this.mode = 'object';
      piece = piece.slice(first);
    }
    this.scan(piece);
  }

  end(): JsonSplit {
    if (this.mode !== 'object')
      return { kind: 'plain', split: this.mode === 'plain' ? this.plain.end() : { answer: '', section: undefined } };
    if (this.answer) this.emit(this.answer.end());
    const rest = this.rest.join('');
    if (this.answered === 'no') return { kind: 'object', answer: rest, answered: 'no', rest };
    return { kind: 'object', answer: this.answerParts.join(''), answered: this.answered, rest };
  }

  private scan(text: string): void {
    let copied = 0;
    let at = 0;
    while (at < text.length && !this.closed) {
      if (this.answer) {
        const { decoded, end } = this.answer.push(text, at);
        this.emit(decoded);
        at = copied = end;
        if (this.answer.closed) {
          this.answer = undefined;
          this.answered = 'whole';
        }
      } else if (this.startsAnswer(text[at]!)) {
        this.rest.push(text.slice(copied, at), '""');
        this.answer = new JsonStringDecoder();
        this.answered = 'cut';
        at = copied = at + 1;
      } else {
        at++;
      }
    }
    if (!this.answer) this.rest.push(text.slice(copied, at));
  }

  /** Follows the object's structure one character at a time; true at the quote that opens the answer's string. */
  private startsAnswer(char: string): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (char === '\\') this.escaped = true;
      else if (char === '"') {
        this.inString = false;
        if (this.key !== undefined) this.lastKey = keyName(this.key);
        this.key = undefined;
        return false;
      }
      if (this.key !== undefined) this.key += char;
      return false;
    }
    if (char === '"') {
      const atTop = this.depth === 1;
      if (atTop && !this.expectKey && this.lastKey === ANSWER_KEY && this.answered === 'no') return true;
      this.inString = true;
      if (atTop && this.expectKey) this.key = '';
    } else if (char === '{' || char === '[') {
      this.depth++;
      if (this.depth === 1) this.expectKey = true;
    } else if (char === '}' || char === ']') {
      this.depth--;
      this.closed = this.depth === 0;
    } else if (this.depth === 1 && (char === ',' || char === ':')) {
      this.expectKey = char === ',';
    }
    return false;
  }

  private emit(piece: string): void {
    if (piece === '') return;
    this.answerParts.push(piece);
    this.onAnswer(piece);
  }
}

function keyName(written: string): string {
  try {
    return JSON.parse(`"${written}"`) as string;
  } catch {
    return written;
  }
}
