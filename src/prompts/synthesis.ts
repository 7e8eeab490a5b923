/** The synthesis prompt: the original's structure, bounded so it always fits the synthesizer. */
import { joinParts, TextParts, type Text } from '../openrouter/text-parts.js';
import type { CandidateLabel } from './agreement/account.js';
import { agreementTask, type AgreementFormat } from './agreement/prompt.js';

export interface CandidateAnswer {
  model: string;
  /** Its start, when only that is kept in memory. */
  content: string;
  chars?: number;
  /** Where the full answer is saved, named in the trim marker. */
  file?: string;
}

export interface Trim {
  model: string;
  keptChars: number;
  originalChars: number;
}

/** The answers are quoted as parts, not copied into the prompt. */
export interface BoundedPrompt {
  text: TextParts;
  trims: Trim[];
  agreement?: CandidateLabel[];
}

/** With `agreement`, the prompt asks for the account of agreement in that format. */
export function buildSynthesisPrompt(
  problem: string,
  candidates: CandidateAnswer[],
  maxChars: number,
  agreement?: AgreementFormat,
): BoundedPrompt {
  const labels = candidates.map((candidate, index) => ({ label: String(index + 1), model: candidate.model }));
  const task =
    agreement &&
    agreementTask(
      labels.map(({ label }) => label),
      agreement,
    );
  const prompt = boundedPrompt((bodies) => render(problem, candidates, bodies, task), candidates, maxChars);
  return task ? { ...prompt, agreement: labels } : prompt;
}

/** Each shortened answer ends with a marker saying how much was left out and where the whole is saved. */
export function boundedPrompt(render: (bodies: Text[]) => TextParts, answers: CandidateAnswer[], maxChars: number): BoundedPrompt {
  const overhead = render(answers.map(() => '')).length;
  const caps = fairCaps(answers.map(usableLength), maxChars - overhead);
  const trims: Trim[] = [];
  const bodies = answers.map((answer, index): Text => {
    const cap = caps[index]!;
    // An answer held only in part is marked as trimmed too, wherever its held part ends.
    if ((answer.chars ?? answer.content.length) <= cap) return answer.content;
    // The marker's length depends on the numbers in it; measure it with the widest ones.
    const kept = Math.max(0, Math.min(answer.content.length, cap - trimMarker(answer, 0).length));
    trims.push({ model: answer.model, keptChars: kept, originalChars: answer.chars ?? answer.content.length });
    return new TextParts(answer.content.slice(0, kept), trimMarker(answer, kept));
  });
  return { text: render(bodies), trims };
}

/** The layout every prompt over candidates' answers shares: who you are, the problem, the answers, the task. */
export function layoutPrompt(parts: { intro: string; problem: string; sections: Text[]; after?: string[]; task: string }): TextParts {
  return joinParts(
    [
      parts.intro,
      '',
      '## The original problem',
      '',
      parts.problem,
      '',
      '## Candidate answers',
      '',
      ...parts.sections,
      ...(parts.after ?? []),
      '## Your task',
      '',
      parts.task,
    ],
    '\n',
  );
}

function usableLength(candidate: CandidateAnswer): number {
  const { content } = candidate;
  return (candidate.chars ?? content.length) > content.length
    ? content.length + trimMarker(candidate, content.length).length
    : content.length;
}

/** Answers shorter than an equal share are kept whole; the longest are trimmed, to the same length. */
export function fairCaps(lengths: number[], available: number): number[] {
  const caps = new Array<number>(lengths.length);
  const order = lengths.map((length, index) => ({ length, index })).sort((a, b) => a.length - b.length);
  let remaining = Math.max(0, available);
  order.forEach(({ length, index }, position) => {
    const share = Math.floor(remaining / (order.length - position));
    caps[index] = Math.min(length, share);
    remaining -= caps[index]!;
  });
  return caps;
}

function trimMarker(candidate: CandidateAnswer, kept: number): string {
  const length = candidate.chars ?? candidate.content.length;
  const where = candidate.file ? `; the full answer is saved in ${candidate.file}` : '';
  return `\n\n[... trimmed to fit the synthesis budget: ${length - kept} of ${length} characters omitted${where}]`;
}

function render(problem: string, candidates: CandidateAnswer[], bodies: Text[], accountTask: string | undefined): TextParts {
  return layoutPrompt({
    intro: `You are an expert synthesiser. ${candidates.length} AI model${candidates.length === 1 ? ' was' : 's were'} given the same problem; their candidate answers follow.`,
    problem,
    sections: candidates.map(
      (candidate, index) => new TextParts(`### Candidate ${index + 1}: ${candidate.model}\n\n`, bodies[index]!, '\n'),
    ),
    task:
      'Write the single best solution to the original problem. Combine the strongest parts of the candidates, ' +
      'correct their mistakes, and where they disagree, resolve the conflict with your own judgement. ' +
      'Answer the problem directly; do not describe the candidates or this process.' +
      (accountTask ? `\n${accountTask}` : ''),
  });
}
