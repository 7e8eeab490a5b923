import type { Agreement } from '../prompts/agreement/account.js';
import type { RunState } from '../run/record.js';

/**
 * The account of agreement as a few lines after the answer (SPEC §10): what the models agreed
 * on, where they differed and how that was resolved, what only one of them raised. Kept within
 * `maxChars`, so that the answer stays the main thing: a line that would not fit is left out,
 * and the last line says how many were (all of them are in structuredContent and run.json).
 */
export function agreementText(record: RunState, maxChars: number): string {
  const agreement = record.synthesis.agreement;
  if (!agreement) return '';
  const lines = agreementLines(agreement).map((line) => shorten(line, LINE_CHARS));
  const kept: string[] = [];
  let length = 0;
  for (const [index, line] of lines.entries()) {
    const left = lines.length - index - 1;
    const room = maxChars - length - (left > 0 ? MORE_CHARS : 0);
    if (line.length + 1 > room) break;
    kept.push(line);
    length += line.length + 1;
  }
  const omitted = lines.length - kept.length;
  if (omitted > 0) kept.push(`(${omitted} more in structuredContent.agreement and run.json)`);
  return kept.join('\n');
}

/** Every line of the account, in full: "Agreed: …", one "Differed: …" per disagreement, "Only one model: …". */
export function agreementLines({ consensus, disagreements, unique }: Agreement): string[] {
  const lines: string[] = [];
  if (consensus.length > 0) lines.push(`Agreed: ${consensus.map(sentence).join(' ')}`);
  for (const { point, positions, resolution } of disagreements) {
    const sides = positions.map(({ models, view }) => `${andList(models.length > 0 ? models : ['?'])}: ${bare(view)}`).join('; ');
    lines.push(`Differed: ${bare(point)} (${sides}) → resolved: ${sentence(resolution)}`);
  }
  if (unique.length > 0) {
    lines.push(
      `Only one model: ${unique.map(({ model, point, kept }) => `${model}: ${bare(point)} (${kept ? 'kept' : 'left out'})`).join('; ')}.`,
    );
  }
  return lines;
}

/** The longest one line may be, and the room kept for the line that says how many were left out. */
const LINE_CHARS = 600;
const MORE_CHARS = 60;

/** "a", "a and b", "a, b and c". */
function andList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** A text as a sentence: trimmed, ending in a full stop unless it already ends in punctuation. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A text to go inside a line: trimmed, without its closing full stop. */
function bare(text: string): string {
  return text.trim().replace(/\.$/, '');
}

function shorten(line: string, maxChars: number): string {
  const flat = line.replace(/\s*\n\s*/g, ' ');
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1)}…`;
}
