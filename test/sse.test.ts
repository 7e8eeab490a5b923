import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../src/errors.js';
import { MAX_LINE_CHARS, SseParser } from '../src/openrouter/sse.js';
import { sseDataOf } from './support/sse.js';

/** The events of a stream whose reads are `parts` (ASCII here, so characters are bytes). */
const dataOf = async (parts: string[]) => sseDataOf(parts);

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

describe('SseParser', () => {
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

describe('SseParser over bytes', () => {
  /** Accented Latin (2 bytes), CJK (3 bytes), emoji (4 bytes, a ZWJ sequence, a flag), next to the event's syntax. */
  const TEXT = 'é日🎉 Café — 日本語 👩‍💻🇫🇷';
  const STREAM = Buffer.from(`: ping\r\n\r\ndata: ${TEXT}\r\ndata:${TEXT}\n\ndata: {"c":"${TEXT}"}\n\n`, 'utf8');
  const WANT = [`${TEXT}\n${TEXT}`, `{"c":"${TEXT}"}`];

  it('decodes every event whole, whichever byte a read ends at, even inside a multibyte character or between CR and LF', () => {
    for (let at = 0; at <= STREAM.length; at++) {
      expect(sseDataOf([STREAM.subarray(0, at), STREAM.subarray(at)]), `split at byte ${at}`).toEqual(WANT);
    }
  });

  it('decodes every event whole whichever two bytes reads end at, and when every byte is its own read', () => {
    for (let a = 0; a <= STREAM.length; a++) {
      for (let b = a; b <= STREAM.length; b += 3) {
        expect(sseDataOf([STREAM.subarray(0, a), STREAM.subarray(a, b), STREAM.subarray(b)]), `split at bytes ${a} and ${b}`).toEqual(WANT);
      }
    }
    expect(sseDataOf([...STREAM].map((byte) => Uint8Array.of(byte)))).toEqual(WANT);
  });

  it('reads plain Uint8Arrays (views into a larger buffer) as well as Buffers', () => {
    const backing = new Uint8Array(STREAM.length + 10);
    backing.set(STREAM, 5);
    expect(sseDataOf([backing.subarray(5, 20), backing.subarray(20, 5 + STREAM.length)])).toEqual(WANT);
  });

  it('turns bytes that are not UTF-8 into U+FFFD, as a streaming decoder of the whole body would', () => {
    const bytes = Buffer.concat([
      Buffer.from('data: a'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('\n\ndata: b'),
      Buffer.from([0xe6, 0x97]),
      Buffer.from('\n\n'),
    ]);
    const whole = new TextDecoder().decode(bytes);
    const want = whole
      .split('\n\n')
      .filter(Boolean)
      .map((event) => event.slice('data: '.length));
    expect(want).toEqual(['a\ufffd\ufffd', 'b\ufffd']);
    for (let at = 0; at <= bytes.length; at++) {
      expect(sseDataOf([bytes.subarray(0, at), bytes.subarray(at)]), `split at byte ${at}`).toEqual(want);
    }
  });

  it('hands over nothing more once onData asks to stop, in the same read or later ones', () => {
    const seen: string[] = [];
    const parser = new SseParser((data) => {
      seen.push(data);
      return data !== 'stop';
    });
    expect(parser.push(Buffer.from('data: a\n\ndata: stop\n\ndata: b\n\n'))).toBe(false);
    expect(parser.push(Buffer.from('data: c\n\n'))).toBe(false);
    parser.end();
    expect(seen).toEqual(['a', 'stop']);
  });

  it('counts the cap in characters, not bytes: a line of 2-byte characters over the cap in bytes but under it in characters is read', () => {
    const chars = MAX_LINE_CHARS - 'data: '.length - 1;
    const line = Buffer.from(`data: ${'é'.repeat(chars)}\n\n`);
    expect(line.length).toBeGreaterThan(MAX_LINE_CHARS);
    const reads = Array.from({ length: Math.ceil(line.length / 65_536) }, (_, i) => line.subarray(i * 65_536, (i + 1) * 65_536));
    const [data] = sseDataOf(reads);
    expect(data).toHaveLength(chars);
    expect(() => sseDataOf([Buffer.from(`data: ${'é'.repeat(MAX_LINE_CHARS)}`)])).toThrow(UpstreamError);
  });
});

describe('SseParser on long lines', () => {
  const KIB64 = 64 * 1024;

  /** One `data:` line of `size` characters, with no newline until the end, in 64 KiB reads. */
  function* longLine(size: number): Generator<Buffer> {
    const line = Buffer.from(`data: ${'x'.repeat(size)}\n\n`);
    for (let at = 0; at < line.length; at += KIB64) yield line.subarray(at, at + KIB64);
  }

  async function timeToRead(size: number): Promise<number> {
    const started = performance.now();
    let length = 0;
    for (const data of sseDataOf(longLine(size))) length += data.length;
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
    function* overlong(): Generator<Buffer> {
      yield Buffer.from('data: ');
      for (; fed < cap + 1024 * 1024; fed += KIB64) yield Buffer.alloc(KIB64, 'x');
    }
    const error = await dataOfIterable(overlong()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'bad_body', message: expect.stringContaining('16 Mi characters') });
    expect(fed).toBeLessThan(cap + 2 * KIB64);
  });

  it('refuses an event whose data lines together pass MAX_LINE_CHARS', async () => {
    const line = `data: ${'y'.repeat(1024 * 1024)}\n`;
    const error = await dataOfIterable(Array.from({ length: 17 }, () => line)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'bad_body' });
  });

  it('accepts a line just under the cap', async () => {
    const size = MAX_LINE_CHARS - 'data: '.length - 1;
    const [data] = await dataOfIterable(longLine(size));
    expect(data).toHaveLength(size);
  });
});

async function dataOfIterable(reads: Iterable<Buffer | string>): Promise<string[]> {
  return sseDataOf(reads);
}
