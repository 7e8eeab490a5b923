export type StoreErrorCode =
  /** The file system did not answer in time. */
  | 'ERR_STORE_TIMEOUT'
  /** A folder we would rely on could be changed by someone else, or is not what we made. */
  | 'ERR_STORE_UNSAFE'
  /** A file is larger than the caller is willing to read. */
  | 'ERR_STORE_TOO_LARGE'
  /** A file name, run id or key outside the names we make. */
  | 'ERR_STORE_BAD_NAME';

/** A run-store failure that is ours, not the operating system's: callers can tell them apart by `code`. */
export class StoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs `work` with a deadline. A file system can stop answering (a dead network mount, a
 * loop in Node under /proc), and that must not hold a call for ever: past `ms` the promise
 * rejects with ERR_STORE_TIMEOUT and `signal` is aborted, so that the work stops at its
 * next step instead of landing late over something newer.
 */
export async function withTimeLimit<T>(ms: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new StoreError('ERR_STORE_TIMEOUT', `${what}: the file system did not answer within ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
    // A pending deadline alone must not keep the process alive.
    timer.unref();
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
