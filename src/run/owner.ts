import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Owner, RunRecord } from './record.js';

/**
 * A run whose journal has not changed for this long is taken for gone: a process on another
 * host (a shared folder) cannot be asked, and a pid on this one may have been reused.
 */
const STALE_MS = 60 * 60 * 1000;

/** The owners made in this process: alive as long as it is. */
const ours = new Set<string>();

/** The runs this process is running, by id. */
const running = new Set<string>();

/** Notes that this process runs `id` until `settled`. */
export function runningHere(id: string, settled: Promise<void>): void {
  running.add(id);
  void settled.then(() => running.delete(id));
}

/** An owner for runs of this process, as run records name it. */
export function currentOwner(): Owner {
  const instance = randomBytes(6).toString('hex');
  ours.add(instance);
  return { pid: process.pid, host: os.hostname(), instance };
}

/**
 * Whether the process that owns a running record is still there. On this host the pid tells;
 * a process on another host cannot be asked, so there only a long silence means it is gone.
 */
export function ownerAlive(record: Pick<RunRecord, 'run_id' | 'owner' | 'updated_at'>, self: Owner, now = Date.now()): boolean {
  const { owner } = record;
  // A run of this process is alive while it runs here: one that has ended, its last journal entry lost, is not.
  if (ours.has(owner.instance)) return running.has(record.run_id);
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
