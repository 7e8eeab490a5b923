import { describe, expect, it } from 'vitest';
import { readAgreement } from '../src/prompts/agreement/account.js';
import { agreementTask } from '../src/prompts/agreement/prompt.js';
import { replyReader } from '../src/prompts/agreement/reply.js';
import { AGREEMENT_MARKER } from '../src/prompts/agreement/section.js';
import { buildSynthesisPrompt } from '../src/prompts/synthesis.js';

const NUMBERED = [
  { label: '1', model: 'openai/gpt-5' },
  { label: '2', model: 'x-ai/grok-4' },
  { label: '3', model: 'openai/gpt-5' },
];
const LETTERED = [
  { label: 'A', model: 'z-ai/glm-4.6' },
  { label: 'B', model: 'openai/gpt-5' },
  { label: 'C', model: 'mistralai/codestral' },
];

const written = {
  consensus: ['Use a lock'],
  disagreements: [
    {
      point: 'Which lock',
      positions: [
        { candidates: ['A', 'C'], view: 'a mutex' },
        { candidates: ['Candidate B'], view: 'a spinlock' },
      ],
      resolution: 'a mutex: the section is long',
    },
  ],
  unique: [{ candidate: 'b', point: 'Beware of priority inversion', kept: true }],
};

describe('readAgreement', () => {
  it('maps the labels the synthesizer saw back to model ids, however it wrote them', () => {
    const read = readAgreement(JSON.stringify(written), LETTERED);
    expect(read).toEqual({
      ok: true,
      value: {
        consensus: ['Use a lock'],
        disagreements: [
          {
            point: 'Which lock',
            positions: [
              { models: ['z-ai/glm-4.6', 'mistralai/codestral'], view: 'a mutex' },
              { models: ['openai/gpt-5'], view: 'a spinlock' },
            ],
            resolution: 'a mutex: the section is long',
          },
        ],
        unique: [{ model: 'openai/gpt-5', point: 'Beware of priority inversion', kept: true }],
      },
    });
  });

  it('takes numbers as numbers or strings, names a repeated model once, and leaves out a label that names no candidate', () => {
    const json = {
      consensus: [],
      disagreements: [{ point: 'p', positions: [{ candidates: [1, '3', 'Candidate 2', 9], view: 'v' }], resolution: 'r' }],
      unique: [{ candidate: 7, point: 'q', kept: false }],
    };
    const read = readAgreement(JSON.stringify(json), NUMBERED);
    expect(read.ok && read.value.disagreements[0]!.positions[0]!.models).toEqual(['openai/gpt-5', 'x-ai/grok-4']);
    expect(read.ok && read.value.unique).toEqual([]);
  });

  it('reads the object out of a code fence and text around it, and takes missing lists as empty', () => {
    const read = readAgreement('Here it is:\n```json\n{"consensus": ["x"]}\n```\n', NUMBERED);
    expect(read).toEqual({ ok: true, value: { consensus: ['x'], disagreements: [], unique: [] } });
  });

  it('says why an account cannot be read: no object, JSON that does not parse (cut short), the wrong shape', () => {
    expect(readAgreement('none today', NUMBERED)).toEqual({ ok: false, error: 'it holds no JSON object' });
    const cut = JSON.stringify(written).slice(0, 80);
    expect(readAgreement(`${cut}}`, NUMBERED)).toMatchObject({ ok: false, error: expect.stringContaining('does not parse') });
    expect(readAgreement(cut, NUMBERED)).toMatchObject({ ok: false });
    expect(readAgreement('{"consensus": "all of it"}', NUMBERED)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^its JSON is not of the asked shape \(consensus: /),
    });
  });
});

describe('replyReader', () => {
  const feed = (reply: string, ending = { truncated: false }) => {
    const reader = replyReader(LETTERED, 'section');
    for (let i = 0; i < reply.length; i += 7) void reader.sink.write(reply.slice(i, i + 7));
    return reader.read('s/synth', ending);
  };

  it('keeps none of the text in the completion, and gives the answer alone with the account', () => {
    expect(replyReader(LETTERED, 'section').sink.keepChars).toBe(0);
    const told = feed(`The answer.\n\n${AGREEMENT_MARKER}\n${JSON.stringify(written)}`);
    expect(told.answer).toBe('The answer.');
    expect(told.agreement?.unique).toEqual([{ model: 'openai/gpt-5', point: 'Beware of priority inversion', kept: true }]);
    expect(told.warning).toBeUndefined();
  });

  it('gives the whole reply as the answer, null and a warning, when the synthesizer ignored the section', () => {
    expect(feed('Only an answer.')).toEqual({
      answer: 'Only an answer.',
      agreement: null,
      warning: 'agreement: s/synth gave no account of where the models agreed and differed',
    });
  });

  it('says an account cut at max_tokens was cut there', () => {
    const told = feed(`Answer\n${AGREEMENT_MARKER}\n{"consensus": ["a`, { truncated: true });
    expect(told).toMatchObject({ answer: 'Answer', agreement: null });
    expect(told.warning).toMatch(/could not be read: .*\(its reply was cut at max_tokens\)$/);
  });

  it('fails a reply with an account and no answer, as an empty reply fails', () => {
    expect(() => feed(`\n\n${AGREEMENT_MARKER}\n{}`)).toThrow(expect.objectContaining({ kind: 'empty' }));
  });
});

describe('the prompt', () => {
  it('asks for the account by the labels the candidates are shown by, after the original task', () => {
    const candidates = NUMBERED.map(({ model }, index) => ({ index, model, content: `answer ${index}` }));
    const on = buildSynthesisPrompt('problem', candidates, 100_000, 'section');
    const off = buildSynthesisPrompt('problem', candidates, 100_000);
    expect(on.agreement).toEqual(NUMBERED);
    expect(off.agreement).toBeUndefined();
    expect(on.text.toString()).toBe(`${off.text.toString()}\n${agreementTask(['1', '2', '3'], 'section')}`);
    expect(agreementTask(['A', 'B'], 'section')).toContain(`exactly ${AGREEMENT_MARKER} and nothing else`);
    expect(agreementTask(['A', 'B'], 'section')).toContain('by their labels (A, B)');
  });
});
