/** What went wrong in team mode, as data: a kind to branch on and a sentence to show. */
export type TeamErrorKind =
  /** PARALLEL_LLM_DATABASE_URL is not set or not a postgres:// URL. */
  | 'no_database'
  /** The database did not answer: refused, timed out, or gone mid-query. */
  | 'database_down'
  /** The database answered but refused: a wrong password or user, a database that does not exist. */
  | 'database_refused'
  /** A member named that does not exist (or is revoked). */
  | 'no_such_member'
  /** A member of that name exists already. */
  | 'member_exists'
  /** A name, budget or period that cannot be stored. */
  | 'bad_input'
  /** The run engine is draining or stopped: it takes no new run. */
  | 'engine_stopped'
  /** The run engine lost its liveness connection: other processes take its runs over, and it starts again. */
  | 'engine_fenced'
  /** A run engine is already running in this process (DBOS is one per process). */
  | 'engine_already_running'
  /** The executor id given to the run engine is held by a live process, or is not a usable name. */
  | 'bad_executor_id';

export class TeamError extends Error {
  override name = 'TeamError';
  constructor(
    readonly kind: TeamErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
