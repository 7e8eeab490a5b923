import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UpstreamError, httpError } from '../src/errors.js';
import { Redactor } from '../src/openrouter/redact.js';

const KEY = 'sk-or-v1-0123456789abcdef';
const redactor = new Redactor(KEY);

describe('Redactor', () => {
  it('removes the key’s value and any Bearer token from upstream text', () => {
    expect(redactor.upstreamText(`invalid header "Authorization: Bearer ${KEY}"`)).toBe(
      'invalid header "Authorization: Bearer [redacted]"',
    );
    expect(redactor.upstreamText(`key ${KEY} was refused; key ${KEY} again`)).toBe('key [redacted] was refused; key [redacted] again');
    expect(redactor.upstreamText('got authorization=bearer   someone-elses.token/xyz, expected more')).toBe(
      'got authorization=Bearer [redacted], expected more',
    );
    const once = redactor.upstreamText(`Bearer ${KEY}`);
    expect(redactor.upstreamText(once)).toBe(once);
  });

  it('removes the key cut short, as an excerpt that ends inside it leaves it', () => {
    expect(redactor.upstreamText(`proxy log: ${KEY.slice(0, 14)}`)).toBe('proxy log: [redacted]');
    expect(redactor.secretIn(`"${KEY.slice(0, 20)}"…`)).toBe('"[redacted]"…');
  });

  it('leaves text without secrets unchanged', () => {
    expect(redactor.upstreamText('Rate limit exceeded: free-models-per-min.')).toBe('Rate limit exceeded: free-models-per-min.');
  });

  it('removes only the key’s value from answers, where talk of Bearer tokens is legitimate', () => {
    expect(redactor.secretIn(`Send "Authorization: Bearer <token>" — your key ${KEY} works`)).toBe(
      'Send "Authorization: Bearer <token>" — your key [redacted] works',
    );
  });

  it('does not scrub a "key" too short to be one, which would mangle the text', () => {
    expect(new Redactor('abc').upstreamText('abc abc')).toBe('abc abc');
    expect(new Redactor('').secretIn('text')).toBe('text');
  });

  it('redacts an error’s message, code and metadata (keys and values, at any depth), and the key in its reasoning', () => {
    const error = httpError(400, `bad Authorization: Bearer ${KEY}`, {
      code: `code-${KEY}`,
      metadata: { raw: { headers: [`Bearer ${KEY}`], [KEY]: 1 }, provider_name: 'P' },
      reasoning: `Bearer tokens like ${KEY}`,
      retryAfterMs: 500,
    });
    const redacted = redactor.error(error);
    const everything = JSON.stringify({
      message: redacted.message,
      code: redacted.code,
      metadata: redacted.metadata,
      reasoning: redacted.reasoning,
      stack: redacted.stack,
    });
    expect(everything).not.toContain(KEY);
    expect(redacted).toMatchObject({
      kind: 'http',
      status: 400,
      retryAfterMs: 500,
      retryable: false,
      message: 'bad Authorization: Bearer [redacted]',
    });
    expect(redacted.metadata).toEqual({ raw: { headers: ['Bearer [redacted]'], '[redacted]': 1 }, provider_name: 'P' });
    expect(redacted.reasoning).toBe('Bearer tokens like [redacted]');
  });

  it('keeps the error’s kind, retryability and cause', () => {
    const cause = new Error('socket');
    const error = new UpstreamError({ kind: 'network', message: 'reset', cause, retryableHint: false });
    expect(redactor.error(error)).toMatchObject({ kind: 'network', retryable: false, cause });
  });

  it('redacts text that arrives in pieces as it would redact it whole, wherever a piece splits the key', () => {
    const text = `Your key is ${KEY}, and again (${KEY}) then some words; then ${KEY.slice(0, 15)}`;
    for (let first = 0; first <= text.length; first++) {
      for (const second of [first, Math.min(text.length, first + 7)]) {
        const out: string[] = [];
        const stream = redactor.stream({ keepChars: 10, write: (piece) => void out.push(piece) });
        for (const piece of [text.slice(0, first), text.slice(first, second), text.slice(second)]) stream.write(piece);
        stream.end();
        expect(out.join(''), `split at ${first}, ${second}`).toBe(redactor.secretIn(text));
      }
    }
  });

  it('passes a streamed text without secrets through unchanged and at once, holding back only an end that may start the key', () => {
    const out: string[] = [];
    const stream = redactor.stream({ keepChars: 10, write: (piece) => void out.push(piece) });
    stream.write('Hello wor');
    expect(out.join('')).toBe('Hello wor');
    stream.write('ld. My key is sk-o');
    expect(out.join('')).toBe('Hello world. My key is ');
    stream.write('dd.\n');
    stream.end();
    expect(out.join('')).toBe('Hello world. My key is sk-odd.\n');
  });

  it('redacts a key that holds characters that end tokens, wherever a piece splits it', () => {
    const odd = new Redactor('abc,def;ghijklmnop');
    const text = 'before abc,def;ghijklmnop after, and abc,def;ghijklmnop.';
    for (let split = 0; split <= text.length; split++) {
      const out: string[] = [];
      const stream = odd.stream({ keepChars: 10, write: (piece) => void out.push(piece) });
      stream.write(text.slice(0, split));
      stream.write(text.slice(split));
      stream.end();
      expect(out.join(''), `split at ${split}`).toBe(odd.secretIn(text));
      expect(out.join('')).not.toContain('ghijklmnop');
    }
  });

  /** `text` through `redactorOf.stream` in pieces cut at `cuts` (taken modulo its length). */
  function streamed(redactorOf: Redactor, text: string, cuts: number[]): string {
    const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
    const out: string[] = [];
    const stream = redactorOf.stream({ keepChars: 10, write: (piece) => void out.push(piece) });
    let from = 0;
    for (const point of [...points, text.length]) {
      stream.write(text.slice(from, point));
      from = point;
    }
    stream.end();
    return out.join('');
  }

  /** Text made of the key, its starts and ends, words and token ends. */
  const textAround = (key: string) =>
    fc
      .array(
        fc.oneof(
          fc.constant(key),
          fc.nat({ max: key.length }).map((cut) => key.slice(0, cut)),
          fc.nat({ max: key.length }).map((cut) => key.slice(cut)),
          fc.constantFrom(' ', ',', '"', 'word', 's', 'sk-', 'x', 'é', '\n'),
        ),
        { maxLength: 12 },
      )
      .map((fragments) => fragments.join(''));
  const cutsArb = fc.array(fc.nat(), { maxLength: 8 });

  it('redacts any text around the key, in any pieces, exactly as it would redact it whole', () => {
    fc.assert(
      fc.property(textAround(KEY), cutsArb, (text, cuts) => {
        expect(streamed(redactor, text, cuts)).toBe(redactor.secretIn(text));
      }),
      { seed: 20_241_125, numRuns: 3000 },
    );
  });

  it('leaves no start of a key that holds token-ending characters in any text around it, in any pieces', () => {
    const key = 'abc,def;ghijklmnop';
    const odd = new Redactor(key);
    fc.assert(
      fc.property(textAround(key), cutsArb, (text, cuts) => {
        expect(streamed(odd, text, cuts)).not.toContain(key.slice(0, 12));
      }),
      { seed: 20_241_125, numRuns: 3000 },
    );
  });
});
