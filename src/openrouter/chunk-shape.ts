import { parseBody } from './chunk.js';
import type { CompletionBody } from './schemas.js';

/** `"content":"`, where a chunk's text starts. */
const CONTENT_KEY = '"content"';
const CONTENT_VALUE = `${CONTENT_KEY}:"`;
/**
 * The longest chunk a shape is learnt from. Models stream chunks of a few hundred characters; a
 * longer one (a proxy that gathers the text) costs its parse little beside its text, and a shape
 * holds on to the chunk it was learnt from.
 */
const MAX_SHAPE_CHARS = 4096;
/**
 * Shapes learnt in a row, each missed by the next chunk of text, before the stream's shape is
 * learnt no more: its chunks differ in more than their text (OpenAI's own API adds a random
 * `obfuscation` to each), and a shape learnt again for every chunk would cost more than it saves.
 */
const MAX_RELEARNT = 4;
/** What a JSON string's text holds only escaped: a quote, a backslash, a control character. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON escapes exactly these control characters.
const ESCAPED = /["\\\u0000-\u001f]/;

/**
 * The chunks of one stream, read as JSON.parse would read them, but without parsing each whole.
 * A model's chunks differ, nearly always, only in their text: the same id, model, provider and
 * fields around a new `content` (in every recorded OpenRouter stream we have seen). Once a chunk
 * has been parsed whole, the next that is the same text before and after its content's string is
 * that chunk with the new content, and only that string is read: parsing every chunk whole was
 * most of a streaming process's work.
 *
 * Why that is exact: the shape is learnt from a chunk with no backslash at all, so every quote in
 * it is JSON's own and `"content"` occurs once, as the key of the content (the first choice's
 * delta's: the parse said so). A later chunk that starts and ends as that one did, with a valid JSON
 * string between, parses to the same body with that string as its content. Anything else (other
 * fields that changed, a string that does not end where the shape's did) is parsed whole.
 */
export class ChunkShape {
  /** The text up to the content's string, and from its closing quote on. */
  private before = '';
  private after = '';
  /** The body of the chunk the shape was learnt from. */
  private body: CompletionBody | undefined;
  /** Shapes learnt since a chunk last had the shape. */
  private relearnt = 0;

  /**
   * Gives `take` the chunk's body, as `parseBody` reads it: for a chunk read through the shape,
   * the body of the chunk the shape was learnt from, and the chunk's own text for its content.
   * Nothing is made for such a chunk but its text: with a huge answer, objects made per chunk
   * can end up in V8's old generation, which only a full collection frees.
   */
  read(data: string, take: (body: CompletionBody, content?: string) => void): void {
    const content = this.contentOf(data);
    if (content !== undefined) {
      this.relearnt = 0;
      take(this.body!, content);
      return;
    }
    const body = parseBody(data);
    this.learn(data, body);
    take(body);
  }

  /** The content, when `data` is the shape's chunk with another; undefined when it must be parsed whole. */
  private contentOf(data: string): string | undefined {
    const { before, after } = this;
    if (!this.body || data.length < before.length + after.length) return undefined;
    // Compared as strings, not with startsWith and endsWith: V8 compares a slice of a string
    // (as the shape's are) with them a character at a time, which is slower.
    if (data.slice(0, before.length) !== before || data.slice(data.length - after.length) !== after) return undefined;
    const text = data.slice(before.length, data.length - after.length);
    if (!ESCAPED.test(text)) return text;
    // Escapes are read by JSON.parse, which also refuses a string that ends before the shape's did.
    try {
      return JSON.parse(`"${text}"`) as string;
    } catch {
      return undefined;
    }
  }

  /** Learns the shape of a chunk whose delta has text; a chunk that does not qualify leaves the shape as it was. */
  private learn(data: string, body: CompletionBody): void {
    const delta = body.choices?.[0]?.delta;
    if (this.relearnt >= MAX_RELEARNT || typeof delta?.content !== 'string' || delta.content === '') return;
    if (data.length > MAX_SHAPE_CHARS || data.includes('\\')) return;
    // With no backslash, the one `"content"` is the delta's key, and its string is the content as it is written.
    const key = data.indexOf(CONTENT_KEY);
    if (data.indexOf(CONTENT_KEY, key + 1) !== -1 || !data.startsWith(CONTENT_VALUE, key)) return;
    const start = key + CONTENT_VALUE.length;
    this.before = data.slice(0, start);
    this.after = data.slice(start + delta.content.length);
    this.body = body;
    this.relearnt++;
  }
}
