import { byCodeUnits } from '../text/locale-free.js';
import { labelList, type ShownCandidate } from './anonymise.js';
import { candidateAt, fieldValue, plainLine } from './reply-lines.js';

export interface Ranking {
  /** Best first; empty when no ranking could be read. */
  order: number[];
  warnings: string[];
}

export interface RankerVerdict {
  ranker: number;
  shown: number[];
  order: number[];
}

export interface AggregateEntry extends ShownCandidate {
  /** 1 when every ranker put it first, 0 when every ranker put it last (Borda points, averaged). */
  score: number;
  rankers: number;
  firsts: number;
}

/** The last "RANKING:" line, or the list under it when the line is empty; forgotten candidates are named in a warning. */
export function parseRanking(reply: string, shown: readonly ShownCandidate[]): Ranking {
  const lines = reply.split(/\r?\n/);
  const at = lines.findLastIndex((line) => fieldValue(line, 'ranking') !== undefined);
  if (at < 0) return { order: [], warnings: ['no RANKING line in the reply'] };
  const value = fieldValue(lines[at]!, 'ranking')!;
  const parts = value === '' ? listUnder(lines.slice(at + 1)) : value.split(/\s*(?:>+|,|;|→|\bthen\b)\s*/i);
  const warnings: string[] = [];
  const order: number[] = [];
  for (const part of parts.filter((text) => text.trim() !== '')) {
    const candidate = candidateAt(part, shown);
    if (!candidate) warnings.push(`"${part.trim()}" in the ranking is none of the candidates shown (${labelList(shown)})`);
    else if (order.includes(candidate.index)) warnings.push(`Candidate ${candidate.label} is ranked twice; the first place counts`);
    else order.push(candidate.index);
  }
  const forgotten = shown.filter((candidate) => !order.includes(candidate.index));
  if (order.length > 0 && forgotten.length > 0)
    warnings.push(`the ranking leaves out ${forgotten.map((candidate) => `Candidate ${candidate.label}`).join(', ')}`);
  if (order.length === 0) warnings.push('the RANKING line names none of the candidates shown');
  return { order, warnings };
}

function listUnder(lines: string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (line.trim() === '' && items.length === 0) continue;
    if (!/^\s*(?:\d+[.)]|[-*•])\s*\S/.test(line)) break;
    items.push(plainLine(line).replace(/^\d+[.)]\s*/, ''));
  }
  return items;
}

/**
 * Borda points scaled to 0–1 (0 for a candidate left out), averaged over the rankers that ranked
 * anything, so a ranker that failed costs no one. Ties go to more first places, then the earlier letter.
 */
export function aggregateRankings(verdicts: readonly RankerVerdict[], candidates: readonly ShownCandidate[]): AggregateEntry[] {
  const counted = verdicts.filter((verdict) => verdict.order.length > 0 && verdict.shown.length > 1);
  const entries = candidates.map((candidate) => {
    const points = counted
      .filter((verdict) => verdict.shown.includes(candidate.index))
      .map((verdict) => {
        const place = verdict.order.indexOf(candidate.index);
        return place < 0 ? 0 : (verdict.shown.length - 1 - place) / (verdict.shown.length - 1);
      });
    const firsts = counted.filter((verdict) => verdict.order[0] === candidate.index).length;
    const score = points.length === 0 ? 0 : points.reduce((sum, value) => sum + value, 0) / points.length;
    return { ...candidate, score, rankers: points.length, firsts };
  });
  return entries.sort(
    (a, b) => b.score - a.score || b.firsts - a.firsts || a.label.length - b.label.length || byCodeUnits(a.label, b.label),
  );
}
