import { isHighSurrogate } from '../text/surrogate-pairs.js';
import type { RunState } from './record.js';
import type { RunTexts, RunView } from './service.js';
import { fairCaps } from '../prompts/synthesis.js';

/** Only what a result can show is copied, so a view never carries more than `maxChars` of answers. */
export function viewOf(state: RunState, texts: RunTexts, maxChars: number): RunView {
  if (texts.answer !== undefined) return { state, answer: prefix(texts.answer, maxChars), answers: new Map(), dir: texts.dir };
  const entries = [...texts.answers.entries()].sort(([a], [b]) => a - b);
  const caps = fairCaps(
    entries.map(([, text]) => text.length),
    maxChars,
  );
  const answers = new Map(entries.map(([index, text], i) => [index, prefix(text, caps[i]!)]));
  return { state, answer: undefined, answers, dir: texts.dir };
}

/** One less where the cut would split a surrogate pair (an emoji) in two. */
export function prefix(text: string, chars: number): string {
  if (text.length <= chars) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(chars - 1)) ? chars - 1 : chars);
}
