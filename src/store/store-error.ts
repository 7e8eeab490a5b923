export type StoreErrorCode =
  /** The file system did not answer in time. */
  | 'ERR_STORE_TIMEOUT'
  /** A folder we rely on could be changed by someone else, or is not what we made. */
  | 'ERR_STORE_UNSAFE'
  | 'ERR_STORE_TOO_LARGE'
  /** A file name, run id or key outside the names we make. */
  | 'ERR_STORE_BAD_NAME'
  /** A claim was lost to other processes too many times in a row. */
  | 'ERR_STORE_CONTENDED'
  /** The disk took only part of a write, with no error (it filled up midway). */
  | 'ERR_STORE_SHORT_WRITE';

/** A store failure that is ours, not the operating system's: callers tell them apart by `code`. */
export class StoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}
