import { fileIn } from '../store/store.js';
import { thousands } from '../text/locale-free.js';
import type { RunView } from '../run/service.js';
import { fairCaps } from '../prompts/synthesis.js';
import { prefix } from '../run/view.js';

/** A cap no answer reaches: for a reader that shows answers whole. */
export const WHOLE_CHARS = 64 * 1024 * 1024;

/** An answer as a result shows it: cut to the result's cap, and saying so. */
export interface ShownText {
  text: string;
  /** The whole answer's length. */
  chars: number;
  cut: boolean;
}

export interface Shown {
  answer: ShownText | undefined;
  /** When there is no synthesized answer: the candidates' answers, by 0-based index. */
  candidates: Map<number, ShownText>;
}

/**
 * The texts a result carries, within `maxChars` in all: the synthesized answer, or else the
 * candidates' answers sharing the cap fairly (the longest cut first, each cut marked with where
 * the whole answer is saved).
 */
export function shownTexts(view: RunView, maxChars: number): Shown {
  const { state: record } = view;
  // Where the whole text is: its file, or why there is none (the disk refused it, or runs are not saved).
  const where = (file: string | undefined) =>
    file && view.dir
      ? `is saved in ${fileIn(view.dir, file)}`
      : view.dir
        ? 'could not be saved (see the warnings)'
        : 'is not saved (PARALLEL_LLM_SAVE_OUTPUTS=false)';
  // A text the disk refused exists nowhere else: the result carries it whole (SPEC §6).
  const capFor = (file: string | undefined, cap: number, text: string) => (refused(view, file) ? Math.max(cap, text.length) : cap);
  if (view.answer !== undefined) {
    const chars = Math.max(view.answer.length, synthesizedChars(view));
    const file = record.synthesis.file;
    return { answer: cut(view.answer, chars, capFor(file, maxChars, view.answer), where(file)), candidates: new Map() };
  }
  const entries = [...view.answers.entries()].sort(([a], [b]) => a - b);
  const caps = fairCaps(
    entries.map(([, text]) => text.length),
    maxChars,
  );
  const candidates = new Map<number, ShownText>();
  entries.forEach(([index, text], i) => {
    const candidate = record.candidates[index];
    const file = candidate?.status === 'answered' ? candidate.file : undefined;
    const chars = candidate?.status === 'answered' ? Math.max(candidate.chars, text.length) : text.length;
    candidates.set(index, cut(text, chars, capFor(file, caps[i]!, text), where(file)));
  });
  return { answer: undefined, candidates };
}

function cut(text: string, chars: number, cap: number, whole: string): ShownText {
  if (chars <= cap && text.length <= cap) return { text, chars, cut: false };
  const marker = `\n\n[... cut at ${thousands(cap)} of ${thousands(chars)} characters; the whole answer ${whole}]`;
  return { text: prefix(text, Math.max(0, cap)) + marker, chars, cut: true };
}

/**
 * Whether the view holds a text cut short that the disk refused to keep: such a text must be
 * read again whole, since the result is then the only place it is.
 */
export function cutAndUnsaved(view: RunView): boolean {
  if (view.answer !== undefined) return refused(view, view.state.synthesis.file) && synthesizedChars(view) > view.answer.length;
  return view.state.candidates.some(
    (candidate) =>
      candidate.status === 'answered' &&
      refused(view, candidate.file) &&
      candidate.chars > (view.answers.get(candidate.index - 1)?.length ?? candidate.chars),
  );
}

/** The run is saved, but this text's file is not there: the disk refused it. */
const refused = (view: RunView, file: string | undefined) => view.dir !== undefined && !file;

const synthesizedChars = (view: RunView) => view.state.synthesis.attempts.find((attempt) => attempt.status === 'answered')?.chars ?? 0;
