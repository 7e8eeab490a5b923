import { describe, expect, it } from 'vitest';
import { JsonReplySplitter } from '../src/prompts/agreement/json-reply.js';
import { JsonStringDecoder } from '../src/prompts/agreement/json-string.js';
import { replyReader } from '../src/prompts/agreement/reply.js';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';

/** A lone half of a surrogate pair: a piece with one cannot be written as UTF-8 on its own. */
const LONE_HALF = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A JSON string's source with every kind of escape, CJK, emoji as is and as a pair of \u escapes, and raw text after it. */
const SOURCE = '"日本語 🙂 \\uD83D\\uDE00 \\u00e9\\u4E2D \\n\\r\\t\\b\\f \\"q\\" a\\\\b a\\/b — end"';
const DECODED = JSON.parse(SOURCE) as string;

function decodeIn(pieces: string[]) {
  const decoder = new JsonStringDecoder();
  const out: string[] = [];
  let after = '';
  for (const piece of pieces) {
    if (decoder.closed) {
      after += piece;
      continue;
    }
    const { decoded, end } = decoder.push(piece);
    out.push(decoded);
    after += piece.slice(end);
  }
  out.push(decoder.end());
  return { text: out.join(''), pieces: out, closed: decoder.closed, after };
}

describe('JsonStringDecoder', () => {
  it('decodes as JSON.parse does wherever two pieces split the source, each piece whole text', () => {
    const source = `${SOURCE.slice(1)}, "next": 1}`;
    for (let at = 0; at <= source.length; at++) {
      const decoded = decodeIn([source.slice(0, at), source.slice(at)]);
      expect(decoded.text, `split at ${at}`).toBe(DECODED);
      expect(decoded.closed).toBe(true);
      expect(decoded.after, `split at ${at}`).toBe(', "next": 1}');
      for (const piece of decoded.pieces) expect(piece, `split at ${at}`).not.toMatch(LONE_HALF);
    }
  });

  it('decodes alike when every character comes on its own (the halves of a pair too)', () => {
    const source = SOURCE.slice(1);
    const decoded = decodeIn([...Array(source.length).keys()].map((i) => source[i]!));
    expect(decoded.text).toBe(DECODED);
    for (const piece of decoded.pieces) expect(piece).not.toMatch(LONE_HALF);
  });

  it('keeps a wrong escape as written, and gives what came when the source ends before the quote', () => {
    expect(decodeIn(['a\\x \\u12G4 b"']).text).toBe('a\\x \\u12G4 b');
    const cut = decodeIn(['half an answer \\uD83D']);
    expect(cut).toMatchObject({ text: 'half an answer \uD83D', closed: false });
  });
});

const ACCOUNT = { consensus: ['yes'], disagreements: [], unique: [{ candidate: 'B', point: 'only B', kept: true }] };

function split(pieces: string[]) {
  const passedOn: string[] = [];
  const splitter = new JsonReplySplitter((piece) => passedOn.push(piece));
  for (const piece of pieces) splitter.push(piece);
  return { ...splitter.end(), passedOn: passedOn.join('') };
}

describe('JsonReplySplitter', () => {
  it('passes on the answer as it comes and keeps the rest as written, wherever the pieces split', () => {
    const reply = `\n {"answer": ${SOURCE}, "agreement": ${JSON.stringify(ACCOUNT)}}\n`;
    for (let at = 0; at <= reply.length; at++) {
      const got = split([reply.slice(0, at), reply.slice(at)]);
      expect(got, `split at ${at}`).toEqual({
        kind: 'object',
        answer: DECODED,
        answered: 'whole',
        rest: `{"answer": "", "agreement": ${JSON.stringify(ACCOUNT)}}`,
        passedOn: DECODED,
      });
    }
  });

  it('finds the answer after the account, and not a key named "answer" inside it; ignores what follows the object', () => {
    const reply = `{"agreement": {"answer": "no", "x": ["}", "\\"answer\\""]}, "ans\\u0077er": "yes \\"it\\""} trailing`;
    expect(split([reply])).toMatchObject({
      answer: 'yes "it"',
      answered: 'whole',
      rest: '{"agreement": {"answer": "no", "x": ["}", "\\"answer\\""]}, "ans\\u0077er": ""}',
    });
  });

  it('says the answer was cut when the reply ends inside it, and gives what came', () => {
    expect(split(['{"answer": "Half of ', 'it'])).toMatchObject({ answer: 'Half of it', answered: 'cut', rest: '{"answer": ""' });
  });

  it('takes a reply with no "answer" string whole, and one that does not begin with { as plain text', () => {
    expect(split(['{"response": "x"}'])).toMatchObject({ answer: '{"response": "x"}', answered: 'no' });
    expect(split(['{"answer": null}'])).toMatchObject({ answered: 'no' });
    expect(split(['  ', 'Plain answer.'])).toEqual({
      kind: 'plain',
      split: { answer: '  Plain answer.', section: undefined },
      passedOn: '',
    });
  });
});

describe('replyReader in the json format', () => {
  const LABELS = [
    { label: 'A', model: 'vendor/a' },
    { label: 'B', model: 'vendor/b' },
  ];
  const read = (reply: string, ending = { truncated: false }) => {
    const reader = replyReader(LABELS, 'json');
    for (let i = 0; i < reply.length; i += 5) void reader.sink.write(reply.slice(i, i + 5));
    return reader.read('s/synth', ending);
  };
  const whole = JSON.stringify({ answer: 'The answer.', agreement: ACCOUNT });

  it('gives the answer and the account, labels made model ids', () => {
    expect(read(whole)).toEqual({
      answer: 'The answer.',
      agreement: { consensus: ['yes'], disagreements: [], unique: [{ model: 'vendor/b', point: 'only B', kept: true }] },
    });
  });

  it('keeps the whole answer that came, with null and a warning, when the reply is cut inside the answer or the account', () => {
    const inAnswer = read('{"answer": "The answer, as far as it g', { truncated: true });
    expect(inAnswer).toEqual({
      answer: 'The answer, as far as it g',
      agreement: null,
      warning:
        "agreement: s/synth's account of where the models agreed and differed could not be read: its JSON ended inside the answer (its reply was cut at max_tokens)",
    });
    const inAccount = read(whole.slice(0, whole.indexOf('only')), { truncated: true });
    expect(inAccount).toMatchObject({ answer: 'The answer.', agreement: null });
    expect(inAccount.warning).toMatch(/could not be read: its JSON does not parse \(.*\) \(its reply was cut at max_tokens\)$/);
  });

  it('says why an account that is malformed, of another shape or missing is null', () => {
    expect(read('{"answer": "A.", "agreement": {"consensus": [oops]}}').warning).toMatch(/could not be read: its JSON does not parse/);
    expect(read('{"answer": "A.", "agreement": {"consensus": "all"}}').warning).toMatch(/not of the asked shape \(consensus: /);
    expect(read('{"answer": "A."}')).toEqual({
      answer: 'A.',
      agreement: null,
      warning: 'agreement: s/synth gave no account of where the models agreed and differed',
    });
    expect(read('{"result": 42}')).toMatchObject({
      answer: '{"result": 42}',
      agreement: null,
      warning: expect.stringContaining('no "answer"'),
    });
  });

  it('reads a model that ignored the response format: plain text, a section, or the object in a code fence', () => {
    expect(read('Just text.')).toEqual({
      answer: 'Just text.',
      agreement: null,
      warning:
        'agreement: s/synth gave no account of where the models agreed and differed: it answered in plain text, not in the JSON object asked for',
    });
    expect(read(`Text.\n${AGREEMENT_MARKER}\n${JSON.stringify(ACCOUNT)}`)).toMatchObject({
      answer: 'Text.',
      agreement: { consensus: ['yes'] },
    });
    expect(read(`\`\`\`json\n${whole}\n\`\`\``)).toMatchObject({ answer: 'The answer.', agreement: { consensus: ['yes'] } });
  });

  it('fails a reply whose answer is empty, as an empty reply fails', () => {
    expect(() => read(JSON.stringify({ answer: ' ', agreement: ACCOUNT }))).toThrow(expect.objectContaining({ kind: 'empty' }));
  });
});
