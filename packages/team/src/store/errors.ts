import { WAIT_ENDED, isDown } from '../database.js';
import { TeamError } from '../errors.js';

/** The same codes as the local file store's StoreError (src/store/store-error.ts): the run code branches on `code`. */
export type RunStoreErrorCode =
  /** A text is larger than the caller can take. */
  | 'ERR_STORE_TOO_LARGE'
  /** A file name, run id, key or instance outside the names the run code makes. */
  | 'ERR_STORE_BAD_NAME'
  /** A claim was lost to other processes too many times in a row. */
  | 'ERR_STORE_CONTENDED'
  /** The run id is taken, or the place was not made by this object. */
  | 'ERR_STORE_UNSAFE';

/** A refusal of the run store's own; a database that does not answer is a TeamError of kind database_down instead. */
export class RunStoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: RunStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What `what` met, as data: an unreachable or silent database is database_down; anything else is passed on. */
export function storeFault(what: string, error: unknown): unknown {
  if (error instanceof TeamError || error instanceof RunStoreError) return error;
  const code = (error as { code?: unknown }).code;
  if (isDown(error) || (typeof code === 'string' && WAIT_ENDED.has(code)))
    return new TeamError('database_down', `${what}: the database did not answer (${(error as Error).message})`, { cause: error });
  return error;
}
