import type { CandidateRecord } from './record.js';
import type { IndexedAnswer } from '../prompts/anonymise.js';

/** Every answer held (by the candidate's 0-based index), and the reasoning of each model that gave reasoning but no answer, labelled so. */
export function lastStepInputs(
  candidates: readonly CandidateRecord[],
  answers: ReadonlyMap<number, string>,
  reasonings: ReadonlyMap<number, string>,
  path: (file: string | undefined) => string | undefined,
): { answers: IndexedAnswer[]; reasonings: IndexedAnswer[] } {
  const inputs = { answers: [] as IndexedAnswer[], reasonings: [] as IndexedAnswer[] };
  for (const candidate of candidates) {
    const index = candidate.index - 1;
    const answer = answers.get(index);
    const reasoning = reasonings.get(index);
    if (candidate.status === 'answered' && answer !== undefined) {
      inputs.answers.push({ index, model: candidate.model, content: answer, chars: candidate.chars, file: path(candidate.file) });
    } else if (candidate.status === 'failed' && reasoning !== undefined) {
      inputs.reasonings.push({
        index,
        model: `${candidate.model} (no answer: its reasoning only)`,
        content: reasoning,
        file: path(candidate.reasoning_file),
      });
    }
  }
  return inputs;
}
