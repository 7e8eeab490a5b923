import path from 'node:path';
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
  const where = (file: string | undefined) => (file && view.dir ? path.join(view.dir, file) : undefined);
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

function cut(text: string, chars: number, cap: number, file: string | undefined): ShownText {
  if (chars <= cap && text.length <= cap) return { text, chars, cut: false };
  const marker = `\n\n[... cut at ${cap.toLocaleString('en-US')} of ${chars.toLocaleString('en-US')} characters; the whole answer is saved in ${file ?? 'the run folder'}]`;
  return { text: prefix(text, Math.max(0, cap)) + marker, chars, cut: true };
}
