import type { StructuredResult } from '../present/output-schema.js';

/**
 * What a run's page shows: the result `get_run` returns (every field, the answers on the
 * structured side), the prompt's first line, and every text in full up to the result cap,
 * since a result carries the models' answers only until a synthesis exists. Types only: the
 * page (ui/) imports them too.
 */
export interface RunPage {
  result: StructuredResult;
  /** The prompt's first line. */
  title: string;
  /** The synthesized (or chosen) answer, when there is one. */
  answer: string | null;
  /** Each model's answer by 0-based index, null while it has none (or none was saved). */
  answers: Array<string | null>;
}

/** One row of the runs list. */
export interface RunRow {
  id: string;
  status: StructuredResult['status'] | 'unknown';
  title: string;
  started_at: string | null;
  elapsed_ms: number | null;
  answered: number;
  models: number;
  cost: number | null;
}
