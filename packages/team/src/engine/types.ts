import type pg from 'pg';

/** Where the engine's lines go: a pino logger fits (fields first, then the message). */
export interface EngineLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * How the engine tries a step again when an attempt fails: after `intervalSeconds`, then each
 * pause `backoffRate` times the one before, up to `maxAttempts` attempts in all; only errors
 * that `retryIf` accepts are tried again, others fail the step at once.
 */
export interface StepRetries {
  maxAttempts: number;
  intervalSeconds: number;
  backoffRate: number;
  retryIf: (error: unknown) => boolean;
}

/** What a run's function may do besides computing: each piece of I/O is a step, or unsaved work. */
export interface RunSteps {
  /**
   * Runs `work` as the run's step `name` and returns its result, which is saved: when the run
   * is taken over by another process, a finished step returns its saved result without
   * running again, and only unfinished steps run. Steps must be started in the same order
   * every time (parallel steps are fine when started in a fixed order), and their results
   * must be JSON values. `signal` aborts when the run is cancelled or this process stops
   * working on it; a step that ends after that is ignored, never saved. A step is tried once
   * unless given `retries`; only its last attempt's outcome is saved.
   */
  step<T>(name: string, work: (signal: AbortSignal) => Promise<T>, retries?: StepRetries): Promise<T>;
  /**
   * Runs `work` under this process's hold on the run, as a step is run, but saves nothing: when
   * the run is taken over, `work` runs again from its start there. For work that keeps its own
   * state as it goes and picks up from it, which then costs none of the engine's round trips to
   * the database for a step. `signal` aborts when this process stops working on the run (not
   * on a cancel, which only steps hear).
   */
  unsaved<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/**
 * A run, from its small JSON input (a member and a run id, say) to its JSON output. It must
 * be deterministic: everything it reads or writes outside memory happens inside a step (or
 * unsaved work).
 */
export type RunFunction<Input, Output> = (input: Input, steps: RunSteps) => Promise<Output>;

export interface EngineOptions<Input, Output> {
  /** The team pool: the engine's own tables (schema dbos) and checkpoints go through it. */
  pool: pg.Pool;
  /** The same database's URL, for the connections the engine holds on its own (liveness and watches). */
  databaseUrl: string;
  logger: EngineLogger;
  /** The package version: only a process of the same version continues another's runs. */
  version: string;
  /** This process's name in the engine; a fresh one by default, and never one used before. */
  executorId?: string;
  run: RunFunction<Input, Output>;
  /**
   * Called each time this process loses its hold on the database (its liveness connection
   * ends, as in a database restart): the runs it was executing go on elsewhere, and the engine
   * starts again, under a new executor id, once the database answers.
   */
  onFenced?: (error: Error) => void;
}

/** How a run ended, if it has. */
export type RunOutcome<Output> =
  | { status: 'done'; output: Output }
  | { status: 'failed'; message: string }
  | { status: 'cancelled' }
  /** Not ended within the wait (running here or elsewhere, or waiting to be taken over). */
  | { status: 'running' }
  /** No run of that id was ever started. */
  | { status: 'unknown' };

/** What a drain left: runs that finished here while draining, and runs handed over to other processes. */
export interface DrainReport {
  finished: number;
  handedOver: number;
}

export interface Engine<Input, Output> {
  /** This process's executor id: the runs it executes are recorded under it. */
  readonly executorId: string;
  /**
   * Starts run `runId` with `input`, resolving once the run is recorded in the database (so it
   * survives this process). Idempotent: a run id started before, here or anywhere, is not
   * started again. Refused (TeamError) once draining, stopped or fenced.
   */
  start(runId: string, input: Input): Promise<void>;
  /** Waits up to `waitMs` for run `runId` to end, wherever it runs. */
  result(runId: string, waitMs: number): Promise<RunOutcome<Output>>;
  /** Cancels run `runId` wherever it runs: its steps' signals abort and no further step starts. */
  cancel(runId: string): Promise<void>;
  /**
   * Takes no new run and no run of another process, waits up to `limitMs` for the runs of this
   * process to finish here (those going on, and those whose start was being recorded as the
   * drain began) and for their outcomes to be recorded, then stops: what has not finished is
   * handed over to the other processes, which continue it from its last finished step.
   */
  drain(limitMs: number): Promise<DrainReport>;
  /** Stops at once, handing every unfinished run over. */
  stop(): Promise<void>;
}
