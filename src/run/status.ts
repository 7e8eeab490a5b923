/** Apart from the record's schema, so that a client that only reads statuses does not build it. */
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
  settled: boolean;
  /** The same request within the reuse window returns this run instead of paying again. */
  reusable: boolean;
  /** The same request takes this run over: its saved answers are kept, only the rest is asked. */
  resumable: boolean;
  isError: boolean;
  task: 'working' | 'completed' | 'failed' | 'cancelled';
}

export const STATUS: Readonly<Record<RunStatus, StatusMeaning>> = {
  running: { settled: false, reusable: true, resumable: false, isError: false, task: 'working' },
  complete: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  partial: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  candidates_only: { settled: true, reusable: true, resumable: false, isError: false, task: 'completed' },
  failed: { settled: true, reusable: false, resumable: false, isError: true, task: 'failed' },
  cancelled: { settled: true, reusable: false, resumable: true, isError: true, task: 'cancelled' },
  interrupted: { settled: true, reusable: false, resumable: true, isError: false, task: 'failed' },
};
