import type { Owner, RunRecord } from './record.js';
import { ownVerdict } from './liveness.js';

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
  const { owner } = record;
  const own = ownVerdict(record);
  if (own !== undefined) return own;
  if (now - Date.parse(record.updated_at) > STALE_MS) return false;
  if (owner.host !== self.host) return true;
  // Our own pid under another instance is a previous life of this pid (pid 1 in a container).
  if (owner.pid === self.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
