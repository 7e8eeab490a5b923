import type { ChatMessage } from '../openrouter/chat-body.js';

/**
 * A follow-up on a finished run (SPEC §10, `follow_up_of`): each model continues the
 * conversation it had, with the panel's final answer in view, then gets the new prompt.
 */

/** What a follow-up needs of the earlier run. */
export interface EarlierRun {
  prompt: string;
  models: readonly string[];
  /** Each candidate's answer by 0-based position; undefined where it failed. */
  answers: ReadonlyArray<string | undefined>;
  /** The synthesis (or the judge's answer); undefined when the run ended without one. */
  finalAnswer: string | undefined;
}

/**
 * Each new candidate's own earlier answer: the earlier answer of the same model, the k-th
 * repeat of a model taking the k-th repeat's (Self-MoA); undefined for a model new to the run.
 */
export function ownEarlierAnswers(earlier: EarlierRun, models: readonly string[]): Array<string | undefined> {
  const seen = new Map<string, number>();
  return models.map((model) => {
    const occurrence = seen.get(model) ?? 0;
    seen.set(model, occurrence + 1);
    const position = earlier.models.flatMap((earlierModel, index) => (earlierModel === model ? [index] : []))[occurrence];
    return position === undefined ? undefined : earlier.answers[position];
  });
}

/**
 * One candidate's conversation: the earlier prompt; its own earlier answer as its turn (or the
 * final answer, for a model that gave none); then the new prompt, after the final answer when
 * the model's turn was its own. Turns alternate user/assistant, as every provider accepts.
 */
export function followUpMessages(earlier: EarlierRun, ownAnswer: string | undefined, prompt: string): ChatMessage[] {
  const ownTurn = ownAnswer ?? earlier.finalAnswer;
  if (ownTurn === undefined) return [{ role: 'user', content: followUpProblem(earlier, prompt) }];
  const finalInView = ownAnswer !== undefined && earlier.finalAnswer !== undefined && earlier.finalAnswer !== ownAnswer;
  const next = finalInView
    ? `Several AI models answered that question, you among them. The final answer, combining their answers, was:\n\n${earlier.finalAnswer}\n\n---\n\n${prompt}`
    : prompt;
  return [
    { role: 'user', content: earlier.prompt },
    { role: 'assistant', content: ownTurn },
    { role: 'user', content: next },
  ];
}

/** The problem as the synthesizer, the judge and the rankers read it: the earlier exchange, then the new prompt. */
export function followUpProblem(earlier: EarlierRun, prompt: string): string {
  const answer = earlier.finalAnswer === undefined ? [] : ['', '### The final answer to it', '', earlier.finalAnswer];
  return ['### An earlier question', '', earlier.prompt, ...answer, '', '### The follow-up question to answer now', '', prompt].join('\n');
}
