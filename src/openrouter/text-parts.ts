/**
 * Text kept as the parts it is made of, never joined into one string. A prompt that quotes long
 * answers runs to hundreds of thousands of characters: joined, it would be one more copy of every
 * answer, held in V8's large-object space until its next full collection. The
 * request's body is encoded from the parts (json-body.ts); `toString` joins them, for a reader.
 */
export class TextParts {
  readonly parts: readonly string[];
  readonly length: number;

  /** The pieces one after another; a piece that is itself parts gives its parts. */
  constructor(...pieces: Text[]) {
    this.parts = pieces.flatMap((piece) => (typeof piece === 'string' ? [piece] : piece.parts));
    this.length = this.parts.reduce((sum, part) => sum + part.length, 0);
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** Text as one string or as parts. */
export type Text = string | TextParts;

/** `pieces` with `separator` between each two, as `Array.join` would put it, but as parts. */
export function joinParts(pieces: readonly Text[], separator: string): TextParts {
  return new TextParts(...pieces.flatMap((piece, i) => (i === 0 ? [piece] : [separator, piece])));
}
