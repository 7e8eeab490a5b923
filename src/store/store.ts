/**
 * The seam between a run and where it is kept: all the run lifecycle (src/run) asks of storage. The output
 * folder (run-store.ts) is one store behind it; a shared database can be another, with no change to src/run.
 */
export { fileIn, fileSafe, isRunId, newRunId } from './names.js';
export { StoreError } from './store-error.js';

/** Who pays for a request's run: the run, the process that runs it (checked by the caller), since when. */
export interface Claim {
  run_id: string;
  owner: object;
  at: string;
}

/** A request's latest claim and its generation; `claim` is undefined when unreadable or not of this shape: it blocks nobody. */
export interface LatestClaim {
  generation: number;
  claim: Claim | undefined;
}

/** A text kept as it streams in: it has its name, whole, once `finish` resolves. */
export interface TextWriter {
  /** A promise when the store is behind: produce no more text until it settles (it never rejects). */
  write(text: string): void | Promise<void>;
  finish(): Promise<string>;
  discard(): Promise<void>;
}

/** One run's place in the store: its journal (run.json) and its texts, each kept whole or not at all. */
export interface RunPlace {
  /** The run's id. */
  readonly name: string;
  /** Where its texts are, as shown to the user. */
  readonly dir: string;
  /**
   * Keeps `text` as `name`, whole, in place of an earlier text of that name; rejects when it cannot.
   * Its caller (the run's journal) coalesces rewrites of one name and tries a refused record again.
   */
  write(name: string, text: string): Promise<string>;
  /** For an answer too long to hold whole. */
  writer(name: string): TextWriter;
  /** The whole text, undefined when absent; rejects when over `maxBytes`. */
  read(name: string, maxBytes: number): Promise<string | undefined>;
  /** At most `maxBytes` of the text's start, never cut inside a character. */
  readStart(name: string, maxBytes: number): Promise<string | undefined>;
  list(): Promise<string[]>;
  /** Removes a place this process created, with what it wrote there; it stays if anything else appeared. */
  discard(): Promise<void>;
}

/** Keeps one process's liveness visible to other processes while it runs runs. */
export interface Lease {
  /** Kept at least until `settled` settles. */
  hold(settled: Promise<unknown>): void;
  stop(): Promise<void>;
}

/** Where runs are kept, as the run lifecycle sees it. */
export interface RunStorage {
  /** Where runs are, as shown to the user. */
  readonly rootDir: string;
  /** Rejects if the id is taken. */
  createRun(id: string): Promise<RunPlace>;
  /** Undefined when there is no such run. */
  openRun(id: string): Promise<RunPlace | undefined>;
  /** The newest run ids, newest first. */
  listRuns(limit: number): Promise<string[]>;
  /**
   * The latest claim of request `key` among all processes sharing the store; undefined when it has none.
   * (The loop that reads it, judges it and makes the next: `takeClaim`, run/claiming.ts.)
   */
  latestClaim(key: string): Promise<LatestClaim | undefined>;
  /** Makes generation `generation` of `key`'s claim, exclusively: false when it was there, or a newer one appeared meanwhile. */
  makeClaim(key: string, generation: number, claim: Claim): Promise<boolean>;
  /** The lease of process `instance`, for owners whose liveness the operating system cannot tell. */
  lease(instance: string): Lease;
  /** Whether `instance`'s lease was kept within `maxAgeMs` (or the store's limit); one that cannot be read counts as kept. */
  leaseFresh(instance: string, maxAgeMs?: number): Promise<boolean>;
}
