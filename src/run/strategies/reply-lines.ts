import type { ShownCandidate } from './anonymise.js';

/**
 * Reading the fields a judge or ranker was asked to write, as real models write them:
 * `**CHOICE:** B`, `choice - candidate b`, `### Ranking: C > A`, `> RANKING: (C), (A)`.
 */

/** A line without the markdown models dress fields in: emphasis, code, a heading, a quote, a bullet. */
export function plainLine(line: string): string {
  return line
    .replace(/[*_`~]/g, '')
    .replace(/^\s*(?:#{1,6}|>|[-•])\s+/, '')
    .trim();
}

/**
 * What follows the field `name` on this line, as written ("**ANSWER:** **No**" gives "**No**"),
 * whatever the name's case and however the name is dressed; a "final" before it is allowed.
 * Undefined when the line is not that field.
 */
export function fieldRest(line: string, name: string): string | undefined {
  const dressed = new RegExp(`^[\\s*_\`~#>•-]*(?:final\\s+)?(?:${name})[*_\`~\\s]*(?::|-|–|—|=)[*_\`~]*\\s*(.*)$`, 'i');
  return dressed.exec(line)?.[1];
}

/** The field's value, trimmed of spaces and of the emphasis that closed around the whole line. */
export function fieldValue(line: string, name: string): string | undefined {
  return fieldRest(line, name)?.replace(/[*_`~\s]+$/, '');
}

/** A letter at the start of a text, after any numbering and a "Candidate" word: "B", "b.", "(B)", "2. Candidate B", "Response B". */
const LEADING_LABEL = /^(?:\d+[.)]\s*)?(?:(?:candidate|response|answer)\s+)?[([]?([a-z]{1,2})(?![a-z])/i;

/** The shown candidate whose letter `text` starts with. */
export function candidateAt(text: string, shown: readonly ShownCandidate[]): ShownCandidate | undefined {
  const letters = LEADING_LABEL.exec(plainLine(text))?.[1]?.toUpperCase();
  return shown.find((candidate) => candidate.label === letters);
}
