import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { StoreError } from './store-error.js';

/** `2026-11-21T13-34-26.123Z_9f3a1c2e`: the time (`:` as `-`), then 8 random hex digits. */
export const RUN_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z_[0-9a-f]{8}$/;
/** A plain name: no separator, never `.` or `..`, short enough for any file system with room for the temporary suffix. */
export const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$/;
/** A request key. */
export const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Where file `name` of a run's place `dir` is, as shown: a folder's path, or a place in a
 * database shown as a URL (`postgres://host/db/runs/ID`), which path.join would mangle.
 */
export const fileIn = (dir: string, name: string): string => (dir.includes('://') ? `${dir}/${name}` : path.join(dir, name));

export const isRunId = (id: string): boolean => RUN_ID.test(id);

/** A new run id, known before its folder exists. */
export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/:/g, '-')}_${randomBytes(4).toString('hex')}`;
}

export function checkName(name: string, pattern: RegExp, what: string): void {
  if (!pattern.test(name)) throw new StoreError('ERR_STORE_BAD_NAME', `not a valid ${what}: ${JSON.stringify(name.slice(0, 80))}`);
}

/** File systems refuse names over 255 bytes; a model id can be longer. */
const MAX_ID_CHARS = 100;

/** A model id as a file-name part (`openai/gpt-5` → `openai_gpt-5`); a long id is cut and given a hash of the whole, so two never collide. */
export function fileSafe(modelId: string): string {
  const safe = modelId.replace(/[^A-Za-z0-9._-]+/g, '_');
  if (safe.length <= MAX_ID_CHARS) return safe;
  return `${safe.slice(0, MAX_ID_CHARS)}~${createHash('sha256').update(modelId).digest('hex').slice(0, 8)}`;
}
