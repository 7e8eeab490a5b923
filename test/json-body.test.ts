import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../src/openrouter/json-body.js';
import { joinParts, TextParts } from '../src/openrouter/text-parts.js';

/** A chat body around `content`, as the client sends it. */
const body = (content: string | TextParts) => ({ model: 'm/x', messages: [{ role: 'user', content }], max_tokens: 100, stream: true });
/** The body's bytes, all of them, checked against the length it gives. */
function bytesOf(value: unknown): Buffer {
  const { length, bytes } = jsonBody(value);
  const all = Buffer.isBuffer(bytes) ? bytes : Buffer.concat([...bytes]);
  expect(all.length).toBe(length);
  return all;
}
const same = (value: unknown) => expect(bytesOf(value).equals(Buffer.from(JSON.stringify(value)))).toBe(true);

describe('jsonBody', () => {
  it('gives the bytes JSON.stringify gives, for short and long strings alike', () => {
    same(body('q'));
    same(body('x'.repeat(100_000)));
    same({ a: 'é€😀"\\\n\u0000'.repeat(20_000), b: ['y'.repeat(40_000), 'short'], c: null, d: 1.5 });
  });

  it('is made a slice at a time when it quotes long text, as often as it is read', () => {
    const { bytes } = jsonBody(body('x'.repeat(100_000)));
    expect(Buffer.isBuffer(bytes)).toBe(false);
    const chunks = [...(bytes as Iterable<Buffer>)];
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.concat([...(bytes as Iterable<Buffer>)]).equals(Buffer.concat(chunks))).toBe(true);
    // A short prompt given as parts is made whole: one write.
    expect(Buffer.isBuffer(jsonBody(body(new TextParts('a', 'b'))).bytes)).toBe(true);
  });

  it('never parts a surrogate pair, wherever a slice ends', () => {
    for (let offset = 16_370; offset < 16_390; offset++) same(body(`${'a'.repeat(offset)}${'😀'.repeat(20_000)}`));
  });

  it('escapes a lone surrogate as JSON.stringify does', () => {
    same(body(`${'a'.repeat(16_383)}\ud83d${'b'.repeat(20_000)}\ude00`));
  });

  it('matches JSON.stringify on any strings', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 40_000 }), { maxLength: 4 }), (texts) => {
        same({ texts });
      }),
      { numRuns: 50 },
    );
  });

  it('encodes text given as parts as the one string they make, and never joins them', () => {
    const parts = new TextParts('### Candidate 1\n\n', 'é€😀"\\\n'.repeat(10_000), '\n', new TextParts('x'.repeat(40_000), '[trimmed]'));
    const sent = bytesOf(body(parts));
    expect(sent.equals(Buffer.from(JSON.stringify(body(parts.toString()))))).toBe(true);
    expect(bytesOf({ empty: new TextParts() }).toString()).toBe('{"empty":""}');
    expect(joinParts(['a', new TextParts('b', 'c'), 'd'], '\n').toString()).toBe(['a', 'bc', 'd'].join('\n'));
  });

  it('reads back as the string the parts make, whatever the parts, a pair split between two included', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 20_000 }), { maxLength: 6 }), (pieces) => {
        const parts = new TextParts(...pieces);
        expect(parts.length).toBe(pieces.join('').length);
        expect(JSON.parse(bytesOf({ content: parts }).toString())).toEqual({ content: pieces.join('') });
      }),
      { numRuns: 50 },
    );
    expect(JSON.parse(bytesOf({ content: new TextParts('a\ud83d', '\ude00b') }).toString()).content).toBe('a😀b');
  });
});
