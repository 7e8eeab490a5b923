import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../src/openrouter/json-bytes.js';

/** A chat body around `content`, as the client sends it. */
const body = (content: string) => ({ model: 'm/x', messages: [{ role: 'user', content }], max_tokens: 100, stream: true });
const same = (value: unknown) => expect(jsonBytes(value).equals(Buffer.from(JSON.stringify(value)))).toBe(true);

describe('jsonBytes', () => {
  it('gives the bytes JSON.stringify gives, for short and long strings alike', () => {
    same(body('q'));
    same(body('x'.repeat(100_000)));
    same({ a: 'é€😀"\\\n\u0000'.repeat(20_000), b: ['y'.repeat(40_000), 'short'], c: null, d: 1.5 });
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
});
