/** Why the engine refused or stopped, as data. The database unreachable is a TeamError (database_down). */
export type EngineErrorKind =
  /** The engine is draining or stopped: it takes no new run. */
  | 'stopped'
  /** The engine lost its liveness connection: other processes have taken its runs over. */
  | 'fenced'
  /** An engine is already running in this process (DBOS is one per process). */
  | 'already_running'
  /** The executor id given is held by a live process, or is not a usable name. */
  | 'bad_executor_id';

export class EngineError extends Error {
  override name = 'EngineError';
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
