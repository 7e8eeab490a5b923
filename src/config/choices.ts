/**
 * The values a user picks among, here so that the settings, the tools' inputs and the run all
 * read one list.
 */

/**
 * How the candidates' answers become one (SPEC §10): `synthesize` merges them, `judge` has the
 * synthesizer pick the best and fix it, `council` has each candidate model rank the others
 * before the synthesizer merges with the ranking in view.
 */
export const STRATEGIES = ['synthesize', 'judge', 'council'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** OpenRouter's unified `reasoning.effort` values (SPEC §10). */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
