import { byCodeUnits } from '../text/locale-free.js';
import { variantBase } from '../openrouter/prices.js';
import type { ModelRow } from '../openrouter/schemas.js';

/** What `doctor` concludes about one configured model id, from the API's model list. */
export type ModelVerdict =
  /** `variantOf`: the id is `base:variant` (`:nitro`, `:floor`, `:free`, ...), unlisted itself, its base listed. */
  | { status: 'listed'; aliasOf?: string; variantOf?: string }
  /** A `~vendor/...-latest` alias on an API that lists no aliases: only a call can tell whether it resolves. */
  | { status: 'unchecked_alias' }
  | { status: 'expiring'; date: string; suggestions: string[] }
  | { status: 'gone'; suggestions: string[] };

export function judgeModel(model: string, rows: ModelRow[]): ModelVerdict {
  const row = findRow(model, rows);
  if (row) return judgeRow(model, row, rows);
  // OpenRouter's variant suffixes apply to every model, but /models lists only a few `:free` and `:thinking` rows.
  const base = variantBase(model);
  const baseRow = base === undefined ? undefined : findRow(base, rows);
  if (base && baseRow) {
    const verdict = judgeRow(base, baseRow, rows);
    return verdict.status === 'listed' ? { ...verdict, variantOf: base } : verdict;
  }
  const id = base ?? model;
  if (isAlias(id) && !rows.some((candidate) => isAlias(candidate.id))) return { status: 'unchecked_alias' };
  return { status: 'gone', suggestions: nearestCurrent(id, rows) };
}

const findRow = (model: string, rows: ModelRow[]) => rows.find((candidate) => candidate.id === model || candidate.canonical_slug === model);

function judgeRow(model: string, row: ModelRow, rows: ModelRow[]): ModelVerdict {
  if (row.expiration_date) return { status: 'expiring', date: row.expiration_date, suggestions: nearestCurrent(model, rows) };
  return row.alias_target ? { status: 'listed', aliasOf: row.alias_target.slug } : { status: 'listed' };
}

const isAlias = (id: string) => id.startsWith('~');
const vendorOf = (id: string) => id.replace(/^~/, '').split('/')[0]!.toLowerCase();
/** The words of a model's name, without version numbers: `google/gemini-2.5-pro` → gemini, pro. */
const nameWords = (id: string) =>
  id
    .toLowerCase()
    .slice(id.indexOf('/') + 1)
    .split(/[-_.:]+/)
    .filter((word) => /[a-z]/.test(word));

/**
 * The current ids nearest to a retired, expiring or mistyped one, a few at most: of the same
 * vendor, not expiring, not a `:variant`; a likely typo first, then the most words of the name
 * in common (same family), then the newest. With no model of that vendor, the closest spellings.
 */
export function nearestCurrent(model: string, rows: ModelRow[]): string[] {
  const current = rows.filter((row) => !row.expiration_date && !row.id.includes(':') && row.id !== model);
  const vendor = vendorOf(model);
  const sameVendor = current.filter((row) => vendorOf(row.id) === vendor);
  if (sameVendor.length === 0)
    return similar(
      model,
      current.map((row) => row.id),
    );
  const words = nameWords(model);
  const tolerance = typoTolerance(model);
  return sameVendor
    .map((row) => ({
      id: row.id,
      typo: editDistance(model, row.id) <= tolerance,
      shared: nameWords(row.id).filter((word) => words.includes(word)).length,
      created: row.created ?? 0,
    }))
    .sort((a, b) => Number(b.typo) - Number(a.typo) || b.shared - a.shared || b.created - a.created || byCodeUnits(a.id, b.id))
    .slice(0, 3)
    .map(({ id }) => id);
}

/** The known ids closest to a mistyped one, by edit distance, a few at most. */
export function similar(model: string, known: Iterable<string>): string[] {
  const tolerance = typoTolerance(model);
  return [...known]
    .map((id) => ({ id, distance: editDistance(model, id) }))
    .filter(({ distance }) => distance <= tolerance)
    .sort((a, b) => a.distance - b.distance || byCodeUnits(a.id, b.id))
    .slice(0, 3)
    .map(({ id }) => id);
}

const typoTolerance = (model: string) => Math.max(2, Math.round(model.length * 0.2));

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
