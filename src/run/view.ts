import type { RunRecord } from './record.js';

/** What a face (tool, task, resource, `ask`) reads of a run: the record and the texts it needs. */
export interface RunView {
  record: Readonly<RunRecord>;
  /** The synthesized answer, once there is one. */
  answer: string | undefined;
  /** Candidates' answers, by 0-based index, while they may be shown (until a synthesis exists). */
  answers: ReadonlyMap<number, string>;
  /** The run folder, when the run is saved. */
  dir: string | undefined;
}
