import type { Owner, RunRecord } from './record.js';
import { ownVerdict, pidExists } from './liveness.js';

export { currentOwner, runningHere } from './liveness.js';

/**
 * A run whose journal has not changed for this long is taken for gone: a process on another
 * host (a shared folder) cannot be asked, and a pid on this one may have been reused.
 */
const STALE_MS = 60 * 60 * 1000;

/**
 * @deprecated The old rule, kept only until runs.ts and stored.ts call liveness.ts's `alive`
 * (which never judges by the journal's age, and tells a reused pid by its start time); then
 * this file goes.
 */
export function ownerAlive(record: Pick<RunRecord, 'run_id' | 'owner' | 'updated_at'>, self: Owner, now = Date.now()): boolean {
  const own = ownVerdict(record);
  if (own !== undefined) return own;
  if (now - Date.parse(record.updated_at) > STALE_MS) return false;
  return record.owner.host !== self.host || pidExists(record.owner.pid);
}
