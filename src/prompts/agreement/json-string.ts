import { SplitPairs } from '../../text/surrogate-pairs.js';

const ESCAPED: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const QUOTE_OR_ESCAPE = /["\\]/g;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * The text of one JSON string, decoded as its pieces arrive, wherever they split it: inside an
 * escape, inside a \uXXXX, between the two \u escapes of a surrogate pair. A first half of a pair
 * is held back until its second half comes, so each decoded piece is whole text.
 */
export class JsonStringDecoder {
  /** An escape begun and not yet ended: '\\', or '\\u' and the hex digits so far. */
  private escape = '';
  private readonly pairs = new SplitPairs();
  /** The closing quote has been read. */
  closed = false;

  /** Decodes `text` from `from` up to the closing quote: the text decoded, and where in `text` the string's source ended. */
  push(text: string, from = 0): { decoded: string; end: number } {
    let decoded = '';
    let at = from;
    while (at < text.length && !this.closed) {
      if (this.escape !== '') {
        const taken = this.continueEscape(text, at);
        decoded += taken.decoded;
        at = taken.end;
        continue;
      }
      QUOTE_OR_ESCAPE.lastIndex = at;
      const stop = QUOTE_OR_ESCAPE.exec(text)?.index ?? text.length;
      decoded += text.slice(at, stop);
      if (stop < text.length) {
        if (text[stop] === '"') this.closed = true;
        else this.escape = '\\';
      }
      at = Math.min(stop + 1, text.length);
    }
    return { decoded: this.closed ? this.pairs.join(decoded) + this.pairs.end() : this.pairs.join(decoded), end: at };
  }

  /** The source ended before the closing quote: a first half of a pair still held back (an escape begun is lost). */
  end(): string {
    return this.pairs.end();
  }

  /** An invalid escape keeps its characters as written: the answer loses nothing for one wrong backslash. */
  private continueEscape(text: string, at: number): { decoded: string; end: number } {
    if (this.escape === '\\') {
      const char = text[at]!;
      if (char === 'u') {
        this.escape = '\\u';
        return { decoded: '', end: at + 1 };
      }
      this.escape = '';
      return { decoded: ESCAPED[char] ?? `\\${char}`, end: at + 1 };
    }
    const digits = text.slice(at, at + 6 - this.escape.length);
    this.escape += digits;
    if (this.escape.length < 6) return { decoded: '', end: at + digits.length };
    const hex = this.escape.slice(2);
    this.escape = '';
    return { decoded: HEX4.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : `\\u${hex}`, end: at + digits.length };
  }
}
