import type { Result } from '../result.js';
import type { RunState } from './record.js';
import type { StartRefusal } from './start-refusal.js';
import type { RunRequest } from './request.js';

/** How a request met its run: a new one, one already there (nothing paid again), or a stopped one taken over. */
export type Joined = 'new' | 'attached' | 'resumed';

export interface StartOptions {
  /** Ask anew even if the same request ran in the last 10 minutes. */
  fresh?: boolean;
  /** A run whose worst case is above this many US dollars does not start. */
  maxCostUsd?: number;
}

/** What a caller needs to follow the run; its state comes with the first watch. */
export interface Started {
  id: string;
  joined: Joined;
}

/** The run of a request, or why none was started (nothing was asked upstream, no folder made). */
export type StartOutcome = Started | { refused: StartRefusal };

export interface LookupError {
  kind: 'bad_id' | 'not_found' | 'damaged' | 'too_large';
  message: string;
}

/** A watcher passes the version back to wait for the next change. */
export interface Watched {
  state: RunState;
  version: number;
  /** When asked for (`viewChars`), the run has ended, and it is this process's. */
  view?: RunView;
}

export interface WatchOptions {
  since?: number;
  waitMs: number;
  signal?: AbortSignal;
  /** A reader that shows no progress needs one answer, not one per change. */
  untilSettled?: boolean;
  /** Once the run has ended, its view for a result of at most this many characters of answers. */
  viewChars?: number;
}

/** A run's texts, held in memory or read from its folder; candidates' answers may be only their starts. */
export interface RunTexts {
  answer: string | undefined;
  /** Candidates' answers, by 0-based index, while they are what a result shows (until a synthesis exists). */
  answers: ReadonlyMap<number, string>;
  dir: string | undefined;
}

/** The texts a result carries, each already within the result's cap. */
export interface RunView extends RunTexts {
  state: RunState;
}

export interface Listing {
  id: string;
  /** Undefined when the run's journal is too large to read for a list (a huge prompt). */
  state: RunState | undefined;
}

export type CancelOutcome = { stopped: true } | { stopped: false; reason: string };

/** What the clients of the runs (tools, tasks, terminal commands) need, wherever runs execute (the run host or this process); they hold run ids, never runs. */
export interface RunService {
  start(request: RunRequest, options?: StartOptions): Promise<StartOutcome>;
  /** Returns once the version is no longer `since`, or after `waitMs`; with `untilSettled`, not before the run ends. */
  watch(id: string, options: WatchOptions): Promise<Result<Watched, LookupError>>;
  view(id: string, maxChars: number): Promise<Result<RunView, LookupError>>;
  cancel(id: string, reason: string): Promise<CancelOutcome>;
  list(limit: number): Promise<Listing[]>;
  onStart(listener: () => void): void;
  /** Said once, in the first result, when runs execute here other than as usual. */
  readonly notice: string | undefined;
  finished(): Promise<void>;
  /** Runs executed in this process stop, journaled to be resumed; the run host's go on. */
  close(): Promise<void>;
}
