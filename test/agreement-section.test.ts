import { describe, expect, it } from 'vitest';
import { AGREEMENT_MARKER, SectionSplitter, isMarkerLine, splitReply } from '../src/prompts/agreement/section.js';

/** The reply pushed in `pieces`; what was passed on as the answer, piece by piece, and what the splitter made of it. */
function streamed(pieces: string[]) {
  const passedOn: string[] = [];
  const splitter = new SectionSplitter((piece) => passedOn.push(piece));
  for (const piece of pieces) splitter.push(piece);
  const split = splitter.end();
  return { ...split, passedOn: passedOn.join('') };
}

const ACCOUNT = '{"consensus": ["Use a lock"], "disagreements": [], "unique": []}';

describe('SectionSplitter', () => {
  const answers = [
    'Use a lock.\n\n```ts\nconst x = 1;\n```\n',
    'Ünïcödé ánswer: 日本語のテキスト and 🙂🙂 emoji,\r\nwith CRLF lines\r\n',
    '<<<AGREE is not the marker\n<<<AGREEMENT>>> inside a line is not it either\n',
  ];

  for (const answer of answers) {
    it(`splits at the marker line wherever the chunks break it (${JSON.stringify(answer.slice(0, 20))}…)`, () => {
      const reply = `${answer}\n${AGREEMENT_MARKER}\n${ACCOUNT}\n`;
      for (let at = 0; at <= reply.length; at++) {
        const split = streamed([reply.slice(0, at), reply.slice(at)]);
        expect(split.answer, `split at ${at}`).toBe(answer.trimEnd());
        expect(split.section, `split at ${at}`).toBe(`${ACCOUNT}\n`);
        expect(split.passedOn, `split at ${at}`).not.toContain('<<<AGREEMENT>>>\n');
        expect(answer.startsWith(split.passedOn.slice(0, answer.length)), `split at ${at}`).toBe(true);
      }
    });
  }

  it('splits alike when every character (every UTF-16 unit, halves of a pair apart) comes on its own', () => {
    const answer = 'Réponse 🙂 日本\n- a list\n---\n';
    const reply = `${answer}\n**${AGREEMENT_MARKER}**\r\n${ACCOUNT}`;
    const split = streamed([...Array(reply.length).keys()].map((i) => reply[i]!));
    expect(split).toEqual({ answer: answer.trimEnd(), section: ACCOUNT, passedOn: `${answer}\n` });
  });

  it('splits at every pair of break points in a short reply', () => {
    const reply = `Yes 🙂\n${AGREEMENT_MARKER}\n{}`;
    for (let a = 0; a <= reply.length; a++) {
      for (let b = a; b <= reply.length; b++) {
        const split = streamed([reply.slice(0, a), reply.slice(a, b), reply.slice(b)]);
        expect([split.answer, split.section], `${a}/${b}`).toEqual(['Yes 🙂', '{}']);
      }
    }
  });

  it('passes on at once every line that cannot be the marker, holding back only a line that still may be', () => {
    const passedOn: string[] = [];
    const splitter = new SectionSplitter((piece) => passedOn.push(piece));
    splitter.push('First line\nSecond');
    expect(passedOn.join('')).toBe('First line\nSecond');
    splitter.push('\n<<<AGR');
    expect(passedOn.join('')).toBe('First line\nSecond\n');
    splitter.push('ARIAN');
    expect(passedOn.join('')).toBe('First line\nSecond\n<<<AGRARIAN');
  });

  it('gives the whole reply as the answer when it has no marker line, a held start included', () => {
    expect(streamed(['The answer\n', '<<<AGREE'])).toEqual({
      answer: 'The answer\n<<<AGREE',
      section: undefined,
      passedOn: 'The answer\n<<<AGREE',
    });
    expect(splitReply('Just an answer.\n\n')).toEqual({ answer: 'Just an answer.\n\n', section: undefined });
  });

  it('finds a marker that ends the reply, with nothing after it, as an empty section', () => {
    expect(splitReply(`Answer\n${AGREEMENT_MARKER}`)).toEqual({ answer: 'Answer', section: '' });
  });

  it('splits at the first marker line only: a second one is part of the section', () => {
    expect(splitReply(`A\n${AGREEMENT_MARKER}\nx\n${AGREEMENT_MARKER}\ny`)).toEqual({ answer: 'A', section: `x\n${AGREEMENT_MARKER}\ny` });
  });

  it('leaves out of the answer a code fence opened for the marker and never closed, and keeps a closed one', () => {
    const fenced = '```ts\nconst x = 1;\n```';
    expect(splitReply(`Answer\n\n\`\`\`json\n${AGREEMENT_MARKER}\n{}\n\`\`\``)).toEqual({ answer: 'Answer', section: '{}\n```' });
    expect(splitReply(`${fenced}\n\n\`\`\`\n${AGREEMENT_MARKER}\n{}`).answer).toBe(fenced);
    expect(splitReply(`${fenced}\n${AGREEMENT_MARKER}\n{}`).answer).toBe(fenced);
  });

  it('takes the marker as a model may decorate it, and nothing else on its line', () => {
    for (const line of [
      AGREEMENT_MARKER,
      `  ${AGREEMENT_MARKER}  `,
      `**${AGREEMENT_MARKER}**`,
      `\`${AGREEMENT_MARKER}\``,
      `## ${AGREEMENT_MARKER}\r`,
    ]) {
      expect(isMarkerLine(line), line).toBe(true);
    }
    for (const line of [`${AGREEMENT_MARKER} follows`, `See ${AGREEMENT_MARKER}`, '<<<AGREEMENT>>', 'AGREEMENT']) {
      expect(isMarkerLine(line), line).toBe(false);
    }
  });
});
