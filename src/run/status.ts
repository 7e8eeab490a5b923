/**
 * A run's statuses and what each means to its faces. Apart from the record's schema (record.ts),
 * so that a face that only reads statuses does not build the schema.
 */
export const RUN_STATUSES = [
  'running',
  'complete', // synthesized from every model
  'partial', // synthesized, some models failed
  'candidates_only', // every synthesizer failed; the candidates are the result
  'failed', // no model answered
  'cancelled', // an explicit stop: a user's cancel
  'interrupted', // the process running it ended mid-run (written on shutdown, or read from a dead owner)
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

interface StatusMeaning {
  /** The run will not change any more by itself: waiting ends. */
  settled: boolean;
  /** The same request within the reuse window returns this run instead of paying again. */
  reusable: boolean;
  /** The same request takes this run over: its saved answers are kept, only the rest is asked. */
  resumable: boolean;
  /** A result of this run is an error result (nothing to use in it). */
  isError: boolean;
  /** The MCP task status of a task whose run is in this state. */
  task: 'working' | 'completed' | 'failed' | 'cancelled';
}

/** What each status means, for every face: the one table. */
export const STATUS: Readonly<Record<RunStatus, StatusMeaning>> = {
  running: { settled: false, reusable: true, resumable: false, isError: false, task: 'working' },
  complete: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  partial: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  candidates_only: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  failed: { settled: true, reusable: false, resumable: false, isError: true, task: 'failed' },
  cancelled: { settled: true, reusable: false, resumable: true, isError: true, task: 'cancelled' },
  interrupted: { settled: true, reusable: false, resumable: true, isError: false, task: 'failed' },
};
