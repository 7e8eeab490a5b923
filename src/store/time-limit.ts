import { withinMs } from '../clock.js';
import { StoreError } from './store-error.js';

/** How long one step on the disk may take, unless the store is told otherwise. */
export const DEFAULT_OP_TIMEOUT_MS = 5000;

/**
 * Runs `work` with a deadline, since a file system can stop answering (a dead network mount). Past
 * `ms` it rejects with ERR_STORE_TIMEOUT and aborts `signal`, so the work never lands late over something newer.
 */
export function withTimeLimit<T>(ms: number, what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return withinMs(ms, work, () => new StoreError('ERR_STORE_TIMEOUT', `${what}: the file system did not answer within ${ms} ms`));
}
