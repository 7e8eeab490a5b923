import { RunStoreError } from './errors.js';

/**
 * The names the run code makes, checked as the local file store checks them (src/store/names.ts),
 * so that a name one store refuses the other refuses too.
 */
export const RUN_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z_[0-9a-f]{8}$/;
export const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;
export const KEY = /^[A-Za-z0-9_-]{1,128}$/;

export function checkName(name: string, pattern: RegExp, what: string): void {
  if (!pattern.test(name)) throw new RunStoreError('ERR_STORE_BAD_NAME', `not a valid ${what}: ${JSON.stringify(name.slice(0, 80))}`);
}
