import { createHash } from 'node:crypto';
import type { CandidateLabel } from './agreement/account.js';
import { boundedPrompt, type CandidateAnswer, type Trim } from './synthesis.js';
import { TextParts, type Text } from '../openrouter/text-parts.js';

/** Judges and rankers see letters, never models, shuffled by the run id so no run favours the first model yet each shows one order. */
export interface IndexedAnswer extends CandidateAnswer {
  index: number;
}

export interface ShownCandidate {
  label: string;
  index: number;
  model: string;
}

export interface StrategyPrompt {
  text: TextParts;
  trims: Trim[];
  shown: ShownCandidate[];
  agreement?: CandidateLabel[];
}

/** "A" … "Z", then "AA", "AB" … */
export function candidateLabel(position: number): string {
  let label = '';
  for (let rest = position + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    label = String.fromCharCode(65 + ((rest - 1) % 26)) + label;
  }
  return label;
}

export function shuffle<T>(items: readonly T[], seed: string): T[] {
  const next = seededRandom(seed);
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

export function anonymise<T extends IndexedAnswer>(runId: string, answers: readonly T[]): Array<T & { label: string }> {
  return shuffle(answers, runId).map((answer, position) => ({ ...answer, label: candidateLabel(position) }));
}

export function answersFollow(lettered: ReadonlyArray<{ label: string }>): string {
  const models = lettered.length === 1 ? '1 AI model was' : `${lettered.length} AI models were`;
  return `${models} given the same problem; their answers follow, anonymised as Candidate ${labelList(lettered)}, in no particular order.`;
}

export function labelList(lettered: ReadonlyArray<{ label: string }>): string {
  return lettered.map((answer) => answer.label).join(', ');
}

export function anonymousSections(answers: ReadonlyArray<{ label: string }>, bodies: Text[]): TextParts[] {
  return answers.map((answer, i) => new TextParts(`### Candidate ${answer.label}\n\n`, bodies[i]!, '\n'));
}

/** A shortened answer's marker names no saved file, since the file is named after the model. */
export function anonymousPrompt(
  lettered: ReadonlyArray<IndexedAnswer & { label: string }>,
  render: (bodies: Text[]) => TextParts,
  maxChars: number,
): StrategyPrompt {
  const quoted = lettered.map(({ model, content, chars }): CandidateAnswer => ({
    model,
    content,
    ...(chars === undefined ? {} : { chars }),
  }));
  const { text, trims } = boundedPrompt(render, quoted, maxChars);
  return { text, trims, shown: lettered.map(({ label, index, model }) => ({ label, index, model })) };
}

/** mulberry32, seeded from the seed's SHA-256: small, fast and the same on every platform. */
function seededRandom(seed: string): () => number {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
