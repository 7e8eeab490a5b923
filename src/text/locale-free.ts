/**
 * A whole number with commas between its thousands, as `toLocaleString('en-US')` writes it, but
 * without ICU: the first call into Intl maps its locale data into the process, a lot of memory
 * for a comma.
 */
export function thousands(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** Orders strings by their UTF-16 code units, the same everywhere; `localeCompare` would load ICU's collation for ids and timestamps. */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
