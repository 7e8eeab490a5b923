/**
 * A council's rankers each need two other answers to compare; with fewer candidates answering
 * there is nothing to rank, and the council is a plain synthesis.
 */
export const COUNCIL_MIN_CANDIDATES = 3;
