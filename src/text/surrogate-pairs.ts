/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
export const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Text that arrives in pieces, a stream's events, which may part a surrogate pair: a piece that
 * ends in the first half of a pair gives that half to the next piece, so that each piece can be
 * encoded as UTF-8 on its own and the pair still becomes its one character.
 */
export class SplitPairs {
  /** A first half held back from the last piece, or ''. */
  private held = '';

  /** `piece` with the half held back put before it, less a first half at its end, now held back. */
  join(piece: string): string {
    const whole = this.held + piece;
    const ends = isHighSurrogate(whole.charCodeAt(whole.length - 1));
    this.held = ends ? whole.slice(-1) : '';
    return ends ? whole.slice(0, -1) : whole;
  }

  /** The pieces have ended: the half held back, if any, which has no other half (as UTF-8 it becomes U+FFFD). */
  end(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}
