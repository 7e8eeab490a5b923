import type { ShownCandidate } from './anonymise.js';

/** Fields as real models write them: `**CHOICE:** B`, `choice - candidate b`, `### Ranking: C > A`, `> RANKING: (C), (A)`. */
export function plainLine(line: string): string {
  return line
    .replace(/[*_`~]/g, '')
    .replace(/^\s*(?:#{1,6}|>|[-•])\s+/, '')
    .trim();
}

/** "**ANSWER:** **No**" gives "**No**", whatever the name's case or dress; a "final" before it is allowed. */
export function fieldRest(line: string, name: string): string | undefined {
  const dressed = new RegExp(`^[\\s*_\`~#>•-]*(?:final\\s+)?(?:${name})[*_\`~\\s]*(?::|-|–|—|=)[*_\`~]*\\s*(.*)$`, 'i');
  return dressed.exec(line)?.[1];
}

export function fieldValue(line: string, name: string): string | undefined {
  return fieldRest(line, name)?.replace(/[*_`~\s]+$/, '');
}

/** A letter at the start of a text, after any numbering and a "Candidate" word: "B", "b.", "(B)", "2. Candidate B", "Response B". */
const LEADING_LABEL = /^(?:\d+[.)]\s*)?(?:(?:candidate|response|answer)\s+)?[([]?([a-z]{1,2})(?![a-z])/i;

export function candidateAt(text: string, shown: readonly ShownCandidate[]): ShownCandidate | undefined {
  const letters = LEADING_LABEL.exec(plainLine(text))?.[1]?.toUpperCase();
  return shown.find((candidate) => candidate.label === letters);
}
