import { describe, expect, it } from 'vitest';
import { sseData } from '../src/openrouter/sse.js';

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
