import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeptText } from '../src/openrouter/kept-text.js';

/** The pieces kept, read back. */
function kept(pieces: string[], limit = Number.MAX_SAFE_INTEGER): { text: string; length: number } {
  const text = new KeptText(limit);
  for (const piece of pieces) text.add(piece);
  return { text: text.text(), length: text.length };
}

/** What UTF-8 makes of the text: a lone surrogate becomes U+FFFD. */
const asUtf8 = (text: string) => Buffer.from(text).toString();

describe('KeptText', () => {
  it('reads back what it was given, split anywhere, a surrogate pair included', () => {
    const text = 'aé€😀z'.repeat(3);
    for (let split = 0; split <= text.length; split++) {
      expect(kept([text.slice(0, split), text.slice(split)])).toEqual({ text, length: text.length });
    }
    // Every code unit a piece of its own.
    expect(kept([...text.split('')]).text).toBe(text);
  });

  it('grows past its first buffer, whatever the pieces’ widths', () => {
    const pieces = Array.from({ length: 30_000 }, (_, i) => ['ab', 'é', '€€€', '😀'][i % 4]!);
    expect(kept(pieces).text).toBe(pieces.join(''));
  });

  it('keeps the first `limit` characters and counts them as a string’s length', () => {
    expect(kept(['hello ', 'wide ', 'world'], 8)).toEqual({ text: 'hello wi', length: 8 });
    expect(kept(['€'.repeat(10)], 4)).toEqual({ text: '€€€€', length: 4 });
  });

  it('reads a lone surrogate as U+FFFD, as it reads from the answer’s file', () => {
    expect(kept(['a\ud83d', 'b'])).toEqual({ text: 'a\ufffdb', length: 3 });
    expect(kept(['a\ude00b']).text).toBe('a\ufffdb');
    // A first half at the very end, and one cut off by the limit, have no other half coming.
    expect(kept(['a\ud83d']).text).toBe('a\ufffd');
    expect(kept(['a😀'], 2)).toEqual({ text: 'a\ufffd', length: 2 });
  });

  it('reads the same text again once it has let its bytes go', () => {
    const text = new KeptText(100_000);
    for (let i = 0; i < 1000; i++) text.add('😀 kept ');
    const first = text.text();
    expect(first).toBe('😀 kept '.repeat(1000));
    expect(text.text()).toBe(first);
    expect(text.length).toBe(first.length);
  });

  it('matches the pieces joined and written as UTF-8, for any pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { maxLength: 60 }), (pieces) => {
        const joined = pieces.join('');
        expect(kept(pieces)).toEqual({ text: asUtf8(joined), length: joined.length });
      }),
      { numRuns: 300 },
    );
  });
});
