import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../src/errors.js';
import { MAX_LINE_CHARS, sseData } from '../src/openrouter/sse.js';

async function* chunksOf(parts: string[]): AsyncGenerator<string> {
  for (const part of parts) yield part;
}

async function dataOf(parts: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(chunksOf(parts))) out.push(data);
  return out;
}

/** A stream as OpenRouter sends it: keep-alive comments, events, a multi-line event, the end marker. */
const FIXTURE = [
  ': OPENROUTER PROCESSING',
  '',
  'data: {"choices":[{"delta":{"content":"Hel"}}]}',
  '',
  ': OPENROUTER PROCESSING',
  '',
  'data:{"choices":[{"delta":{"content":"lo"}}]}',
  '',
  'event: message',
  'id: 7',
  'data: first line',
  'data: second line',
  '',
  '',
  'data: [DONE]',
  '',
  '',
].join('\n');

const EXPECTED = [
  '{"choices":[{"delta":{"content":"Hel"}}]}',
  '{"choices":[{"delta":{"content":"lo"}}]}',
  'first line\nsecond line',
  '[DONE]',
];

describe('sseData', () => {
  it('yields each event’s data and skips `: OPENROUTER PROCESSING` comments and other fields', async () => {
    expect(await dataOf([FIXTURE])).toEqual(EXPECTED);
  });

  it('yields nothing for a stream of comments only', async () => {
    expect(await dataOf([': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n'])).toEqual([]);
  });

  it('skips a comment that looks like a data line', async () => {
    expect(await dataOf([':data: not an event\n\ndata: real\n\n'])).toEqual(['real']);
  });

  it('gives the same events whichever single point the stream is split at', async () => {
    for (let at = 0; at <= FIXTURE.length; at++) {
      expect(await dataOf([FIXTURE.slice(0, at), FIXTURE.slice(at)]), `split at ${at}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events whichever two points the stream is split at', async () => {
    for (let a = 0; a <= FIXTURE.length; a += 3) {
      for (let b = a; b <= FIXTURE.length; b += 5) {
        const parts = [FIXTURE.slice(0, a), FIXTURE.slice(a, b), FIXTURE.slice(b)];
        expect(await dataOf(parts), `split at ${a} and ${b}`).toEqual(EXPECTED);
      }
    }
  });

  it('gives the same events when every character arrives in its own chunk', async () => {
    expect(await dataOf([...FIXTURE])).toEqual(EXPECTED);
  });

  it('reads CRLF line endings, whichever point the stream is split at, even between CR and LF', async () => {
    const crlf = FIXTURE.replace(/\n/g, '\r\n');
    expect(await dataOf([crlf])).toEqual(EXPECTED);
    for (let at = 0; at <= crlf.length; at++) {
      expect(await dataOf([crlf.slice(0, at), crlf.slice(at)]), `split at ${at}`).toEqual(EXPECTED);
    }
  });

  it('joins the lines of a multi-line data field with \\n', async () => {
    expect(await dataOf(['data: a\ndata: b\ndata: c\n\n'])).toEqual(['a\nb\nc']);
  });

  it.each([
    ['no newline at all', 'data: x\n\ndata: last'],
    ['one newline but no blank line', 'data: x\n\ndata: last\n'],
    ['CRLF but no blank line', 'data: x\r\n\r\ndata: last\r\n'],
  ])('yields a final event that ends with %s', async (_, stream) => {
    expect(await dataOf([stream])).toEqual(['x', 'last']);
  });

  it('yields a final multi-line event without a trailing blank line, joined with \\n', async () => {
    expect(await dataOf(['data: a\ndata: b'])).toEqual(['a\nb']);
  });

  it('takes one space after `data:` as syntax, and keeps any further spaces', async () => {
    expect(await dataOf(['data:x\n\ndata: x\n\ndata:  x\n\n'])).toEqual(['x', 'x', ' x']);
  });

  it('yields nothing for an empty stream or blank lines alone', async () => {
    expect(await dataOf([])).toEqual([]);
    expect(await dataOf(['', '\n\n\n', '\r\n'])).toEqual([]);
  });
});

describe('sseData on long lines', () => {
  const KIB64 = 64 * 1024;

  /** One `data:` line of `size` characters, with no newline until the end, in 64 KiB reads. */
  async function* longLine(size: number): AsyncGenerator<string> {
    const line = `data: ${'x'.repeat(size)}\n\n`;
    for (let at = 0; at < line.length; at += KIB64) yield line.slice(at, at + KIB64);
  }

  async function timeToRead(size: number): Promise<number> {
    const started = performance.now();
    let length = 0;
    for await (const data of sseData(longLine(size))) length += data.length;
    expect(length).toBe(size);
    return performance.now() - started;
  }

  /** The fastest of several runs: what the work costs, without the noise of a busy machine. */
  async function fastest(size: number, runs: number): Promise<number> {
    let best = Infinity;
    for (let i = 0; i < runs; i++) best = Math.min(best, await timeToRead(size));
    return best;
  }

  it('reads a 5 MB line fed in 64 KiB pieces in time linear in its length (four times the line, about four times the time)', async () => {
    await fastest(1_000_000, 2); // warm up the JIT
    const quarter = await fastest(1_250_000, 7);
    const whole = await fastest(5_000_000, 7);
    // A parser that rescans or re-copies what it holds on every piece takes about 16 times as long for four times the line.
    expect(whole / quarter).toBeLessThan(8);
  });

  it(`refuses a line longer than MAX_LINE_CHARS (${MAX_LINE_CHARS}) as bad_body, without waiting for its end`, async () => {
    const cap = 16 * 1024 * 1024;
    let fed = 0;
    /** A line that goes on for a mebibyte past the cap (and then stops, so a parser without a cap ends too). */
    async function* overlong(): AsyncGenerator<string> {
      yield 'data: ';
      for (; fed < cap + 1024 * 1024; fed += KIB64) yield 'x'.repeat(KIB64);
    }
    const error = await dataOfIterable(overlong()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'bad_body', message: expect.stringContaining('16 Mi characters') });
    expect(fed).toBeLessThan(cap + 2 * KIB64);
  });

  it('refuses an event whose data lines together pass MAX_LINE_CHARS', async () => {
    const line = `data: ${'y'.repeat(1024 * 1024)}\n`;
    const error = await dataOfIterable(chunksOf(Array.from({ length: 17 }, () => line))).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'bad_body' });
  });

  it('accepts a line just under the cap', async () => {
    const size = MAX_LINE_CHARS - 'data: '.length - 1;
    const [data] = await dataOfIterable(longLine(size));
    expect(data).toHaveLength(size);
  });
});

async function dataOfIterable(chunks: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(chunks)) out.push(data);
  return out;
}
