import { agreementTask, type AgreementFormat } from './agreement/prompt.js';
import { layoutPrompt } from './synthesis.js';
import type { Text } from '../openrouter/text-parts.js';
import {
  anonymise,
  anonymousPrompt,
  anonymousSections,
  answersFollow,
  shuffle,
  type IndexedAnswer,
  type StrategyPrompt,
} from './anonymise.js';
import type { AggregateEntry } from './ranking.js';

/** Rankers each need two other answers to compare; with fewer answers the council is a plain synthesis. */
export const COUNCIL_MIN_CANDIDATES = 3;

/** Each ranker sees the others' answers in an order of its own, so no answer gains by always coming first. */
export function buildRankingPrompt(
  problem: string,
  answers: IndexedAnswer[],
  ranker: number,
  runId: string,
  maxChars: number,
): StrategyPrompt {
  const others = shuffle(
    anonymise(runId, answers).filter((answer) => answer.index !== ranker),
    `${runId}/ranker/${ranker}`,
  );
  const render = (bodies: Text[]) =>
    layoutPrompt({
      intro: `You are reviewing answers to a problem. ${answersFollow(others)}`,
      problem,
      sections: anonymousSections(others, bodies),
      task: [
        'Evaluate each candidate answer in a few lines: is it correct, complete and useful, and what does it get wrong or miss?',
        'Then rank the candidates from best to worst. ' +
          'End your reply with one line in exactly this format, naming every candidate once, best first:',
        'RANKING: <letter> > <letter> > ...',
      ].join('\n'),
    });
  return anonymousPrompt(others, render, maxChars);
}

/** Answers lettered as the rankers saw them, then the combined ranking; with `agreement`, the account asked in that format. */
export function buildCouncilSynthesisPrompt(
  problem: string,
  answers: IndexedAnswer[],
  ranking: readonly AggregateEntry[],
  runId: string,
  maxChars: number,
  agreement?: AgreementFormat,
): StrategyPrompt {
  const lettered = anonymise(runId, answers);
  const render = (bodies: Text[]) =>
    layoutPrompt({
      intro:
        `You are an expert synthesiser. ${answersFollow(lettered)} ` +
        'The same models then reviewed and ranked each other’s answers without knowing whose they were; the combined ranking follows the answers.',
      problem,
      sections: anonymousSections(lettered, bodies),
      after: ['## Peer ranking, best first', '', ...ranking.map(rankingLine), ''],
      task:
        'Write the single best solution to the original problem. Combine the strongest parts of the candidates, giving more weight to the answers ' +
        'the reviewers ranked higher, but judge every claim on its merits: a lower-ranked answer may hold the one correct detail. ' +
        'Correct mistakes, and where the candidates disagree, resolve the conflict with your own judgement. ' +
        'Answer the problem directly; do not mention the candidates, the ranking or this process.' +
        (agreement
          ? `\n${agreementTask(
              lettered.map(({ label }) => label),
              agreement,
            )}`
          : ''),
    });
  const prompt = anonymousPrompt(lettered, render, maxChars);
  return agreement ? { ...prompt, agreement: lettered.map(({ label, model }) => ({ label, model })) } : prompt;
}

/** "1. Candidate C: score 0.83 (ranked by 3 reviewers, first for 2)" */
function rankingLine(entry: AggregateEntry, place: number): string {
  if (entry.rankers === 0) return `${place + 1}. Candidate ${entry.label}: not ranked (no reviewer's ranking could be read)`;
  const reviewers = `${entry.rankers} reviewer${entry.rankers === 1 ? '' : 's'}`;
  return `${place + 1}. Candidate ${entry.label}: score ${entry.score.toFixed(2)} (ranked by ${reviewers}, first for ${entry.firsts})`;
}
