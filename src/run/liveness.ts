import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { RunStorage } from '../store/store.js';
import { DEFAULT_OP_TIMEOUT_MS, withTimeLimit } from '../store/time-limit.js';
import { packageVersion } from '../version.js';
import { readOwnKernelView, readProcStat, type KernelView } from './proc-stat.js';
import type { Owner } from './record.js';

/**
 * An owner as run.json and claims record it: enough to tell its process from every other,
 * alive or dead, here or elsewhere. The kernel's view is there on Linux only; `version` is
 * the package's, for whoever reads the journal.
 */
export interface OwnerIdentity extends Owner, Partial<KernelView> {
  version?: string;
}

/** A zombie, or a process being reaped: ended, though /proc still shows it. */
const ENDED_STATES = new Set(['Z', 'X', 'x']);

/** This process's own view, read once (and undefined for good where there is none). */
let ownView: { view: KernelView | undefined } | undefined;

function kernelView(): KernelView | undefined {
  ownView ??= { view: readOwnKernelView() };
  return ownView.view;
}

/**
 * Tells whether the process that owns a run or a claim is alive, never by the age of the run's
 * journal (a model may be silent for an hour). One per process's runs: it knows the owners it
 * made and the runs it runs; any other owner is asked of the kernel or of the store's leases.
 */
export class Liveness {
  /** The owners made here: alive as long as this process is. */
  private readonly ours = new Set<string>();
  /** The runs run here, by id. */
  private readonly running = new Set<string>();

  constructor(
    private readonly store: Pick<RunStorage, 'leaseFresh'> | undefined,
    /** A lease untouched for this long is a process gone; undefined: the store's own limit. */
    private readonly leaseFreshMs?: number,
  ) {}

  /** An owner for runs of this process, as run records and claims name it. */
  newOwner(): OwnerIdentity {
    const instance = randomBytes(8).toString('hex');
    this.ours.add(instance);
    return { pid: process.pid, host: os.hostname(), instance, ...kernelView(), version: packageVersion() };
  }

  /** Notes that this process runs `id` until `settled`. */
  runningHere(id: string, settled: Promise<void>): void {
    this.running.add(id);
    void settled.then(() => this.running.delete(id));
  }

  /**
   * Whether the process that owns a running run is alive. A run of ours: whether we still run
   * it. Any other: as `processAlive` tells.
   */
  async alive(subject: { run_id: string; owner: Owner }): Promise<boolean> {
    return this.ours.has(subject.owner.instance) ? this.running.has(subject.run_id) : this.processAlive(subject.owner);
  }

  /**
   * Whether the process `owner` names is alive, whatever it runs. This very process is. One of
   * this kernel and PID namespace: the kernel tells, by its pid and its start time (a pid reused
   * by another process is not alive). One recorded by an older version on this host: by its pid.
   * Any other (another machine sharing the store, another container, a system without /proc):
   * alive while its lease is fresh; a lease that cannot be read is taken for alive, since taking
   * a live run over would pay for it twice.
   */
  async processAlive(owner: OwnerIdentity): Promise<boolean> {
    if (this.ours.has(owner.instance)) return true;
    if (sameKernelView(owner)) {
      const reading = withTimeLimit(DEFAULT_OP_TIMEOUT_MS, `reading /proc/${owner.pid}/stat`, (signal) => readProcStat(owner.pid, signal));
      const stat = await reading.catch(() => null);
      // null: /proc could not be read, so the lease tells.
      if (stat !== null) return stat !== undefined && stat.startTime === owner.start_time && !ENDED_STATES.has(stat.state);
    }
    if (owner.version === undefined && owner.host === os.hostname()) return pidExists(owner.pid);
    return this.store ? this.store.leaseFresh(owner.instance, this.leaseFreshMs) : false;
  }
}

/**
 * For an owner recorded before owners had a start time, a version and a lease (a server not
 * yet upgraded, still running its run): whether its pid is there, on this host. Our own pid is
 * a previous life of it; 0 or a negative pid (a process group, every process) is nobody.
 */
function pidExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `owner` was recorded by a process whose pid means the same here: this host, this boot, this PID namespace. */
function sameKernelView(owner: OwnerIdentity): boolean {
  const view = kernelView();
  return (
    view !== undefined &&
    owner.host === os.hostname() &&
    owner.boot_id === view.boot_id &&
    owner.pid_ns === view.pid_ns &&
    Number.isSafeInteger(owner.start_time) &&
    Number.isSafeInteger(owner.pid) &&
    owner.pid > 0
  );
}
