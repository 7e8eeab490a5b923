import path from 'node:path';
import { thousands } from '../locale-free.js';
import type { RunView } from '../run/service.js';
import { fairCaps } from '../run/synthesis.js';
import { prefix } from '../run/view.js';

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
      ? `is saved in ${path.join(view.dir, file)}`
      : view.dir
        ? 'could not be saved (see the warnings)'
        : 'is not saved (PARALLEL_LLM_SAVE_OUTPUTS=false)';
  if (view.answer !== undefined) {
    const synthesized = record.synthesis.attempts.find((attempt) => attempt.status === 'answered');
    const chars = Math.max(view.answer.length, synthesized?.chars ?? 0);
    return { answer: cut(view.answer, chars, maxChars, where(record.synthesis.file)), candidates: new Map() };
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
    candidates.set(index, cut(text, chars, caps[i]!, where(file)));
  });
  return { answer: undefined, candidates };
}

function cut(text: string, chars: number, cap: number, whole: string): ShownText {
  if (chars <= cap && text.length <= cap) return { text, chars, cut: false };
  const marker = `\n\n[... cut at ${thousands(cap)} of ${thousands(chars)} characters; the whole answer ${whole}]`;
  return { text: prefix(text, Math.max(0, cap)) + marker, chars, cut: true };
}
