import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { parseBody } from '../src/openrouter/chunk.js';
import { ChunkShape } from '../src/openrouter/chunk-shape.js';
import type { CompletionBody } from '../src/openrouter/schemas.js';

/** A chunk as OpenRouter streams it, with `content` as given (raw: already JSON, quotes and all). */
const chunk = (rawContent: string, finish = 'null') =>
  `{"id":"gen-1","provider":"Anthropic","model":"anthropic/claude-sonnet-4","object":"chat.completion.chunk","created":1767764021,` +
  `"choices":[{"index":0,"delta":{"role":"assistant","content":${rawContent},"reasoning":null,"reasoning_details":[]},` +
  `"finish_reason":${finish},"native_finish_reason":null,"logprobs":null}]}`;
const text = (content: string) => chunk(JSON.stringify(content));

/** What `read` returns, or the message of what it threw: a refused chunk must be refused alike both ways. */
function outcome(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

/** The body the shape gives for `line`: for a chunk read through it, the learnt body with the chunk's text for its content. */
function bodyOf(shape: ChunkShape, line: string): CompletionBody {
  let read: CompletionBody | undefined;
  shape.read(line, (body, content) => {
    if (content === undefined) {
      read = body;
      return;
    }
    const [first, ...others] = body.choices!;
    read = { ...body, choices: [{ ...first, delta: { ...first!.delta, content } }, ...others] };
  });
  return read!;
}

/** Every line read through one shape, each expected to read as a whole parse would. */
function expectSameAsWhole(lines: string[]): void {
  const shape = new ChunkShape();
  for (const line of lines)
    expect(
      outcome(() => bodyOf(shape, line)),
      line,
    ).toEqual(outcome(() => parseBody(line)));
}

/** How many times reading `line` called JSON.parse: none for a chunk read through the shape, one for a chunk parsed whole. */
function parsesOf(shape: ChunkShape, line: string): number {
  const parse = vi.spyOn(JSON, 'parse');
  try {
    bodyOf(shape, line);
    return parse.mock.calls.length;
  } finally {
    parse.mockRestore();
  }
}

const fixtureLines = (name: string) =>
  readFileSync(new URL(`./fixtures/streams/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');

describe('a stream read through its chunks shape', () => {
  it('reads a chunk that only changes the text without parsing it whole, and gives its text as the content', () => {
    const shape = new ChunkShape();
    expect(parsesOf(shape, text('Hello'))).toBe(1);
    expect(parsesOf(shape, text(', world'))).toBe(0);
    const [second, third] = [bodyOf(shape, text('second')), bodyOf(shape, text('third'))];
    expect([second.choices?.[0]?.delta?.content, third.choices?.[0]?.delta?.content]).toEqual(['second', 'third']);
    // Nothing is made per chunk but its text: each gets the body the shape was learnt from.
    const given: Array<[CompletionBody, string | undefined]> = [];
    for (const piece of ['fourth', 'fifth']) shape.read(text(piece), (body, content) => given.push([body, content]));
    expect(given[0]![0]).toBe(given[1]![0]);
    expect(given.map(([, content]) => content)).toEqual(['fourth', 'fifth']);
  });

  it('parses a chunk longer than a few KiB whole, and learns no shape from it', () => {
    const shape = new ChunkShape();
    bodyOf(shape, text('x'.repeat(5000)));
    expect(parsesOf(shape, text('y'.repeat(5000)))).toBe(1);
    expect(parsesOf(shape, text('short'))).toBe(1);
    expect(parsesOf(shape, text('y'.repeat(5000)))).toBe(0);
  });

  it('learns no more shapes in a stream whose every chunk differs beyond its text, and reads it as a whole parse does', () => {
    const tagged = (tag: number, content: string) => text(content).replace('"id":"gen-1"', `"id":"gen-1","obfuscation":"${tag}"`);
    const shape = new ChunkShape();
    for (let tag = 1; tag <= 5; tag++) expect(parsesOf(shape, tagged(tag, 'a'))).toBe(1);
    expect(parsesOf(shape, tagged(5, 'b'))).toBe(1);
    expect(parsesOf(shape, tagged(4, 'c'))).toBe(0);
    expectSameAsWhole(Array.from({ length: 12 }, (_, i) => tagged(i % 7, `piece ${i}`)));
  });

  it('reads every chunk of the fixture streams as a whole parse does', () => {
    for (const name of [
      'azure-router.chunks.txt',
      'deepseek-reasoner.chunks.txt',
      'groq-qwen3.chunks.txt',
      'mistral-magistral.chunks.txt',
    ]) {
      expectSameAsWhole(fixtureLines(name));
    }
  });

  it('reads texts that need escapes, and texts that change the chunk around them, as a whole parse does', () => {
    const raw = [
      '"a \\"quoted\\" word"',
      '"two\\nlines\\r\\n\\ttabbed"',
      '"caf\\u00e9 \\ud83d\\ude00 \\/ \\\\"',
      '"é € 😀 “curly”"',
      '"a","reasoning":"b"',
      '"a"},"extra":{"content":"b"',
      '"ends in a backslash\\"',
      '"\\u00"',
      '"raw\u0001control"',
      '"raw\nnewline"',
      '""',
      '"',
      'null',
      '42',
      '["parts"]',
    ];
    expectSameAsWhole([text('first'), ...raw.flatMap((content) => [chunk(content), text('between')])]);
  });

  it('is learnt only from a chunk where content is one string, its key written once, with no escapes', () => {
    const variants = [
      chunk('"x"').replace('"role":"assistant"', '"content":"x","role":"assistant"'),
      chunk('"x"').replace('"model":"anthropic/claude-sonnet-4"', '"model":"content"'),
      chunk('"x"').replace('"id":"gen-1"', '"id":"gen\\u002d1"'),
      chunk('"x"').replace('"content":', '"content" :'),
      chunk('"x"').replace('"content":', '"cont\\u0065nt":'),
      chunk('"x"').replace('[{"index":0', '[{"index":1,"delta":{"content":"y"}},{"index":0'),
    ];
    for (const learnt of variants) {
      const shape = new ChunkShape();
      bodyOf(shape, learnt);
      const next = learnt.replace('"x"', '"y"');
      expect(parsesOf(shape, next), learnt).toBe(1);
      expectSameAsWhole([learnt, next, learnt]);
    }
  });

  it('keeps its shape through chunks of another shape, and learns a new one from the next chunk of text', () => {
    const other = (content: string) => text(content).replace('"gen-1"', '"gen-2"');
    const reasoning = chunk('""').replace('"reasoning":null', '"reasoning":"thinking"');
    expectSameAsWhole([text('a'), reasoning, text('b'), other('c'), other('d'), text('e'), chunk('"f"', '"stop"'), chunk('"g"', '"stop"')]);
  });

  it('reads any text, and any change of the chunk at the text, as a whole parse does', () => {
    const piece = fc.constantFrom(
      'a',
      'é',
      '😀',
      '"',
      '\\',
      'n',
      'u',
      '0',
      'd83d',
      '\n',
      '\u0001',
      ',',
      ':',
      '{',
      '}',
      '[',
      ']',
      '"content":',
    );
    const middle = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(fc.array(middle, { minLength: 1, maxLength: 8 }), (middles) => {
        expectSameAsWhole([text('start'), ...middles.map((raw) => chunk(`"${raw}"`))]);
      }),
      { seed: 20_261_126, numRuns: 300 },
    );
  });
});
