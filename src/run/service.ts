import type { Result } from '../result.js';
import type { RunState } from './record.js';
import type { StartRefusal } from './start-refusal.js';
import type { RunRequest } from './request.js';

/** How a request met its run: a new one, one already there (nothing paid again), or a stopped one taken over. */
export type Joined = 'new' | 'attached' | 'resumed';

export interface StartOptions {
  /** Ask anew even if the same request ran in the last 10 minutes. */
  fresh?: boolean;
  /** The call's cost ceiling in US dollars (the lower of its own and the server's): a run whose worst case is above it does not start. */
  maxCostUsd?: number;
}

/** A request's run: which, how the request met it, and how it stands. */
export interface Started {
  id: string;
  joined: Joined;
  state: RunState;
}

/** The run of a request, or why none was started (nothing was asked upstream, no folder made). */
export type StartOutcome = Started | { refused: StartRefusal };

/** Why a run cannot be read: an id that is no run's, a run that is not there, one whose journal is damaged, or larger than the reader allows. */
export interface LookupError {
  kind: 'bad_id' | 'not_found' | 'damaged' | 'too_large';
  message: string;
}

/** A run as it stands, and its version: a watcher passes the version back to wait for the next change. */
export interface Watched {
  state: RunState;
  version: number;
  /** The run's view, when the watch was asked for one (`viewChars`), the run has ended, and it is this process's. */
  view?: RunView;
}

export interface WatchOptions {
  since?: number;
  waitMs: number;
  signal?: AbortSignal;
  /** Wake only when the run has ended: a reader that shows no progress needs one answer, not one per change. */
  untilSettled?: boolean;
  /** Once the run has ended, its view for a result of at most this many characters of answers, with it: what the reader shows next. */
  viewChars?: number;
}

/** What a face shows of a run: its state, the texts a result carries (each already within the result's cap), and its folder. */
export interface RunView {
  state: RunState;
  /** The synthesized answer, once there is one. */
  answer: string | undefined;
  /** Candidates' answers, by 0-based index, while they are what a result shows (until a synthesis exists). */
  answers: ReadonlyMap<number, string>;
  /** The run folder, when the run is saved. */
  dir: string | undefined;
}

export interface Listing {
  id: string;
  /** Undefined when the run's journal is too large to read for a list (a huge prompt). */
  state: RunState | undefined;
}

/** What a cancel did: stopped the run, or why not. */
export type CancelOutcome = { stopped: true } | { stopped: false; reason: string };

/**
 * Everything a face (the MCP tools and tasks, `ask`, `runs`, `cancel`) needs of the runs,
 * wherever they execute: in the run host (reached over its socket) or, where no host can
 * start, in this process. Faces hold run ids, never runs.
 */
export interface RunService {
  /** The run of this request: a new one, the same request's run (attached), or its stopped run taken over (resumed); or a refusal. */
  start(request: RunRequest, options?: StartOptions): Promise<StartOutcome>;
  /**
   * The run as it stands once its version is no longer `since` (at once when `since` is not
   * given), or after `waitMs`; with `untilSettled`, not before it has ended (or `waitMs` passed).
   */
  watch(id: string, options: WatchOptions): Promise<Result<Watched, LookupError>>;
  /** The run's texts for a result of at most `maxChars` characters of answers. */
  view(id: string, maxChars: number): Promise<Result<RunView, LookupError>>;
  /** An explicit stop: every upstream request of the run is aborted and nothing more is billed. */
  cancel(id: string, reason: string): Promise<CancelOutcome>;
  /** The newest runs that can be read, newest first. */
  list(limit: number): Promise<Listing[]>;
  /** Called whenever a new run starts (for the resource list). */
  onStart(listener: () => void): void;
  /** Said once to the user, in the first result: how runs execute here, when that is not as usual. */
  readonly notice: string | undefined;
  /** Settles once the runs this process executes have ended: at once when they execute in the run host. */
  finished(): Promise<void>;
  /** This face is done: runs executed in this process stop, journaled to be resumed; the run host's go on. */
  close(): Promise<void>;
}
