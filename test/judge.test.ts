import { describe, expect, it } from 'vitest';
import type { IndexedAnswer, ShownCandidate } from '../src/prompts/anonymise.js';
import { buildJudgePrompt, parseJudgeReply } from '../src/prompts/judge.js';

const problem = 'Is 2^61 - 1 prime? Show how you know.';
const answers: IndexedAnswer[] = [
  { index: 0, model: 'openai/gpt-5', content: 'ANSWER-ZERO: yes, a Mersenne prime.', file: '/runs/r1/candidate-1_openai_gpt-5.md' },
  { index: 1, model: 'x-ai/grok-4', content: 'ANSWER-ONE: no.' },
  // Index 2 failed and is not among the answers; 3 repeats model 0 (Self-MoA).
  { index: 3, model: 'openai/gpt-5', content: 'ANSWER-THREE: yes, by Lucas-Lehmer.' },
];
const runId = '2026-11-24T10-00-00.000Z_ab12cd34';

describe('buildJudgePrompt', () => {
  const prompt = buildJudgePrompt(problem, answers, runId, 100_000);

  it('shows every answer lettered A, B, C, and no model name anywhere', () => {
    expect(prompt.shown.map((shown) => shown.label)).toEqual(['A', 'B', 'C']);
    for (const answer of answers) expect(String(prompt.text)).toContain(answer.content);
    expect(String(prompt.text)).not.toMatch(/openai|gpt|grok|x-ai/i);
    for (const { label, index } of prompt.shown) {
      const section = String(prompt.text).indexOf(`### Candidate ${label}\n`);
      expect(section).toBeGreaterThan(String(prompt.text).indexOf(problem));
      expect(String(prompt.text).indexOf(answers.find((answer) => answer.index === index)!.content)).toBeGreaterThan(section);
    }
  });

  it('maps each letter back to its candidate’s index and model, each repeat of a model on its own', () => {
    expect(prompt.shown.map((shown) => [shown.index, shown.model]).sort()).toEqual([
      [0, 'openai/gpt-5'],
      [1, 'x-ai/grok-4'],
      [3, 'openai/gpt-5'],
    ]);
  });

  it('letters the same run the same way every time, and asks for the CHOICE, REASON, ANSWER format', () => {
    expect(buildJudgePrompt(problem, answers, runId, 100_000)).toEqual(prompt);
    const task = String(prompt.text).slice(String(prompt.text).lastIndexOf('## Your task'));
    expect(task).toMatch(/single best candidate/);
    expect(task).toMatch(/verbatim/);
    expect(task).toMatch(/^CHOICE: .*\nREASON: .*\nANSWER:\n/m);
  });

  it('stays within its bound, trimming the longest answer, and its trim marker names no file (the file is named after the model)', () => {
    const long = answers.map((answer) => ({ ...answer, content: answer.content + 'x'.repeat(40_000) }));
    const bounded = buildJudgePrompt(problem, long, runId, 30_000);
    expect(bounded.text.length).toBeLessThanOrEqual(30_000);
    expect(bounded.trims.length).toBeGreaterThan(0);
    expect(String(bounded.text)).toMatch(/trimmed to fit/);
    expect(String(bounded.text)).not.toMatch(/openai|candidate-1_|\.md/);
  });
});

describe('parseJudgeReply', () => {
  const shown: ShownCandidate[] = [
    { label: 'A', index: 3, model: 'openai/gpt-5' },
    { label: 'B', index: 0, model: 'openai/gpt-5' },
    { label: 'C', index: 1, model: 'x-ai/grok-4' },
  ];
  const B = shown[1];

  it('reads the format as asked, mapping the letter back to the candidate and its model', () => {
    const verdict = parseJudgeReply('CHOICE: B\nREASON: Correct and proves it.\nANSWER:\nYes: 2^61 - 1 is prime.\n\nProof follows.', shown);
    expect(verdict).toEqual({
      choice: B,
      reason: 'Correct and proves it.',
      answer: 'Yes: 2^61 - 1 is prime.\n\nProof follows.',
      warnings: [],
    });
  });

  it.each([
    ['markdown bold', '**CHOICE:** B\n**REASON:** Correct.\n**ANSWER:**\nYes.'],
    ['lower case and spaces', 'choice :   b\nreason:  Correct.\nanswer:\nYes.'],
    ['the word Candidate and a note', 'CHOICE: Candidate B (the second one shown)\nREASON: Correct.\nANSWER:\nYes.'],
    ['a heading and a dash', '### Choice - (b)\nReason - Correct.\n## Answer\n\nYes.'.replace('## Answer', '## Answer:')],
    ['a preamble before the choice', 'I compared the three answers carefully.\n\nFINAL CHOICE: B\nREASON: Correct.\nANSWER:\nYes.'],
    ['Windows line endings', 'CHOICE: B\r\nREASON: Correct.\r\nANSWER:\r\nYes.'],
  ])('reads a reply with %s', (_, reply) => {
    expect(parseJudgeReply(reply, shown)).toMatchObject({ choice: B, reason: 'Correct.', answer: 'Yes.', warnings: [] });
  });

  it('keeps a reason over several lines, and an answer on the marker’s own line', () => {
    const verdict = parseJudgeReply('CHOICE: C\nREASON: Right answer.\nFixed a typo.\nANSWER: **No**, it is not.\nMore.', shown);
    expect(verdict).toMatchObject({ choice: shown[2], reason: 'Right answer.\nFixed a typo.', answer: '**No**, it is not.\nMore.' });
  });

  it('keeps lines in the answer that look like fields ("Choice:", "Answer:")', () => {
    const verdict = parseJudgeReply('CHOICE: A\nREASON: Best.\nANSWER:\nChoice: (c) is right.\nAnswer: 42', shown);
    expect(verdict.answer).toBe('Choice: (c) is right.\nAnswer: 42');
  });

  it('keeps the whole reply as the answer, with a warning, when no choice is named', () => {
    const reply = 'All three answers are similar; the number is prime.';
    expect(parseJudgeReply(reply, shown)).toEqual({ answer: reply, warnings: [expect.stringMatching(/no CHOICE line/)] });
  });

  it('keeps the whole reply, with a warning naming the letters shown, when the choice is none of them', () => {
    const verdict = parseJudgeReply('CHOICE: E\nREASON: x\nANSWER:\ny', shown);
    expect(verdict.choice).toBeUndefined();
    expect(verdict.answer).toBe('CHOICE: E\nREASON: x\nANSWER:\ny');
    expect(verdict.warnings).toEqual([expect.stringMatching(/"E".*\(A, B, C\)/)]);
  });

  it('takes everything after the choice and reason as the answer when the ANSWER marker is missing, and says so', () => {
    const verdict = parseJudgeReply('CHOICE: B\nREASON: Correct.\nYes, it is prime.', shown);
    expect(verdict).toMatchObject({
      choice: B,
      reason: 'Correct.',
      answer: 'Yes, it is prime.',
      warnings: [expect.stringMatching(/no ANSWER marker/)],
    });
  });

  it('keeps the whole reply, and the choice, when nothing follows the ANSWER marker', () => {
    const verdict = parseJudgeReply('CHOICE: B\nREASON: Correct.\nANSWER:\n  ', shown);
    expect(verdict).toMatchObject({
      choice: B,
      reason: 'Correct.',
      answer: 'CHOICE: B\nREASON: Correct.\nANSWER:',
      warnings: [expect.stringMatching(/no answer/)],
    });
  });
});
