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
  | 'bad_input';

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
