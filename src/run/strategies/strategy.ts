/**
 * How the candidates' answers become one (SPEC §10): `synthesize` merges them, `judge` has the
 * synthesizer pick the best and fix it, `council` has each candidate model rank the others
 * before the synthesizer merges with the ranking in view.
 */
export const STRATEGIES = ['synthesize', 'judge', 'council'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * A council's rankers each need two other answers to compare; with fewer candidates answering
 * there is nothing to rank, and the council is a plain synthesis.
 */
export const COUNCIL_MIN_CANDIDATES = 3;
