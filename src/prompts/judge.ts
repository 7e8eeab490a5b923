import { layoutPrompt } from './synthesis.js';
import type { Text } from '../openrouter/text-parts.js';
import {
  anonymise,
  anonymousPrompt,
  anonymousSections,
  answersFollow,
  labelList,
  type IndexedAnswer,
  type ShownCandidate,
  type StrategyPrompt,
} from './anonymise.js';
import { candidateAt, fieldRest, fieldValue } from './reply-lines.js';

/** The `judge` strategy (SPEC §10): where answers can be checked, picking beats merging, which loses a correct answer's precision. */

export interface JudgeVerdict {
  choice?: ShownCandidate;
  reason?: string;
  answer: string;
  warnings: string[];
}

export function buildJudgePrompt(problem: string, answers: IndexedAnswer[], runId: string, maxChars: number): StrategyPrompt {
  const lettered = anonymise(runId, answers);
  const render = (bodies: Text[]) =>
    layoutPrompt({
      intro: `You are an expert judge. ${answersFollow(lettered)}`,
      problem,
      sections: anonymousSections(lettered, bodies),
      task: [
        'Pick the single best candidate answer to the original problem: the most correct, complete and useful one.',
        'Then return that answer verbatim, changed only where it needs fixing: correct its mistakes, and add what it misses ' +
          'that another candidate got right. Do not merge the answers into a new one.',
        '',
        'Reply in exactly this format:',
        'CHOICE: <the letter of the best candidate>',
        'REASON: <why it is the best, and what you fixed, in at most three lines>',
        'ANSWER:',
        '<the chosen answer, with its fixes>',
      ].join('\n'),
    });
  return anonymousPrompt(lettered, render, maxChars);
}

/** A reply without a readable choice is kept whole as the answer: the judge's text is worth more than a refusal. */
export function parseJudgeReply(reply: string, shown: readonly ShownCandidate[]): JudgeVerdict {
  const lines = reply.split(/\r?\n/);
  const choiceAt = lines.findIndex((line) => fieldValue(line, 'choice') !== undefined);
  if (choiceAt < 0) return wholeReply(reply, `the judge named no candidate (no CHOICE line), so its whole reply is the answer`);
  const named = fieldValue(lines[choiceAt]!, 'choice')!;
  const choice = candidateAt(named, shown);
  if (!choice) {
    return wholeReply(
      reply,
      `the judge chose "${named}", which is none of the candidates (${labelList(shown)}), so its whole reply is the answer`,
    );
  }

  const answerAt = lines.findIndex((line, i) => i > choiceAt && fieldValue(line, 'answer') !== undefined);
  if (answerAt >= 0) return verdict(reply, choice, reasonText(lines.slice(choiceAt + 1, answerAt)), answerAfter(lines, answerAt), []);
  // No marker: a REASON line right after the choice is the reason, and the rest the answer.
  const reason = reasonText(lines.slice(choiceAt + 1, choiceAt + 2));
  const rest = lines
    .slice(choiceAt + (reason === undefined ? 1 : 2))
    .join('\n')
    .trim();
  return verdict(reply, choice, reason, rest, [
    'the judge wrote no ANSWER marker; its answer is taken to be everything after the choice and reason',
  ]);
}

function verdict(reply: string, choice: ShownCandidate, reason: string | undefined, answer: string, warnings: string[]): JudgeVerdict {
  const read = { choice, ...(reason === undefined ? {} : { reason }) };
  if (answer === '')
    return { ...read, ...wholeReply(reply, 'the judge returned no answer after its choice, so its whole reply is the answer') };
  return { ...read, answer, warnings };
}

function reasonText(lines: string[]): string | undefined {
  const [first, ...rest] = lines;
  const value = first === undefined ? undefined : fieldValue(first, 'reasons?');
  if (value === undefined) return undefined;
  const text = [value, ...rest].join('\n').trim();
  return text === '' ? undefined : text;
}

function answerAfter(lines: string[], answerAt: number): string {
  return [fieldRest(lines[answerAt]!, 'answer'), ...lines.slice(answerAt + 1)].join('\n').trim();
}

function wholeReply(reply: string, warning: string): JudgeVerdict {
  return { answer: reply.trim(), warnings: [warning] };
}
