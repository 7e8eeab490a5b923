import type { ChatMessage } from '../openrouter/chat-body.js';
import { fairCaps } from '../prompts/synthesis.js';
import { prefix } from './view.js';

/** For a follow-up (SPEC §10), each model continues its own conversation with the final answer in view. */
export interface EarlierRun {
  prompt: string;
  models: readonly string[];
  /** Each candidate's answer by 0-based position; undefined where it failed. */
  answers: ReadonlyArray<string | undefined>;
  finalAnswer: string | undefined;
}

/** The k-th repeat of a model takes the k-th repeat's earlier answer (Self-MoA). */
export function ownEarlierAnswers(earlier: EarlierRun, models: readonly string[]): Array<string | undefined> {
  const seen = new Map<string, number>();
  return models.map((model) => {
    const occurrence = seen.get(model) ?? 0;
    seen.set(model, occurrence + 1);
    const position = earlier.models.flatMap((earlierModel, index) => (earlierModel === model ? [index] : []))[occurrence];
    return position === undefined ? undefined : earlier.answers[position];
  });
}

/** A model with no earlier answer takes the final answer as its turn; turns alternate user/assistant, as every provider accepts. */
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

/** As the synthesizer, the judge and the rankers read it. */
export function followUpProblem(earlier: EarlierRun, prompt: string): string {
  const answer = earlier.finalAnswer === undefined ? [] : ['', '### The final answer to it', '', earlier.finalAnswer];
  return ['### An earlier question', '', earlier.prompt, ...answer, '', '### The follow-up question to answer now', '', prompt].join('\n');
}

/** What followUpMessages adds around the earlier turns and the new prompt, at most. */
const FRAME_CHARS = 200;

/** Shortens the longest turns first, so every conversation stays within PARALLEL_LLM_MAX_PROMPT_CHARS. */
export function boundEarlier(earlier: EarlierRun, prompt: string, maxChars: number): { earlier: EarlierRun; shortened: boolean } {
  const finalChars = earlier.finalAnswer?.length ?? 0;
  const lengths = [earlier.prompt.length, Math.max(0, ...earlier.answers.map((answer) => answer?.length ?? 0)), finalChars];
  const available = maxChars - prompt.length - FRAME_CHARS;
  if (lengths[0]! + lengths[1]! + lengths[2]! <= available) return { earlier, shortened: false };
  const [promptCap, answerCap, finalCap] = fairCaps(lengths, available) as [number, number, number];
  const shortened: EarlierRun = {
    ...earlier,
    prompt: shorten(earlier.prompt, promptCap),
    answers: earlier.answers.map((answer) => answer && shorten(answer, answerCap)),
    finalAnswer: earlier.finalAnswer && shorten(earlier.finalAnswer, finalCap),
  };
  return { earlier: shortened, shortened: true };
}

/** What the worst-case cost reads. */
export function longestConversation(earlier: EarlierRun, models: readonly string[], prompt: string): string {
  const own = ownEarlierAnswers(earlier, models);
  const texts = models.map((_, i) =>
    followUpMessages(earlier, own[i], prompt)
      .map((message) => message.content)
      .join('\n'),
  );
  return texts.reduce((longest, text) => (text.length > longest.length ? text : longest), '');
}

function shorten(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const marker = (left: number) => `\n\n[... ${left} characters of this earlier turn left out to fit PARALLEL_LLM_MAX_PROMPT_CHARS]`;
  const kept = prefix(text, Math.max(0, cap - marker(text.length).length));
  return kept + marker(text.length - kept.length);
}
