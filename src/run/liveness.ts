import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { LEASE_FRESH_MS, type Leases } from '../store/leases.js';
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

export interface AliveOptions {
  /** A lease untouched for this long is a process gone. */
  leaseFreshMs?: number;
}

/** A zombie, or a process being reaped: ended, though /proc still shows it. */
const ENDED_STATES = new Set(['Z', 'X', 'x']);

/** The owners made in this process: alive as long as it is. */
const ours = new Set<string>();
/** The runs this process is running, by id. */
const running = new Set<string>();
/** This process's own view, read once (and undefined for good where there is none). */
let ownView: { view: KernelView | undefined } | undefined;

const kernelView = (): KernelView | undefined => (ownView ??= { view: readOwnKernelView() }).view;

/** Notes that this process runs `id` until `settled`. */
export function runningHere(id: string, settled: Promise<void>): void {
  running.add(id);
  void settled.then(() => running.delete(id));
}

/** An owner for runs of this process, as run records and claims name it. */
export function currentOwner(): OwnerIdentity {
  const instance = randomBytes(8).toString('hex');
  ours.add(instance);
  return { pid: process.pid, host: os.hostname(), instance, ...kernelView(), version: packageVersion() };
}

/** What this process knows of a run of its own: whether it still runs it; undefined for another process's run. */
function ownVerdict(subject: { run_id: string; owner: Owner }): boolean | undefined {
  return ours.has(subject.owner.instance) ? running.has(subject.run_id) : undefined;
}

/**
 * Whether the process that owns a running run is alive, never judged by the age of the run's
 * journal (a model may be silent for an hour). A run of this process: whether it still runs
 * it. A process of this kernel and PID namespace: the kernel tells, by its pid and its start
 * time (a pid reused by another process is not alive; our own pid under another instance is a
 * previous life of it). One recorded by an older version on this host: by its pid. Any other
 * (another machine sharing the folder, another container, a system without /proc): alive
 * while its lease is fresh. A lease that cannot be read is taken for alive: taking a live run
 * over would pay for it twice.
 */
export async function alive(subject: { run_id: string; owner: Owner }, leases: Leases, options: AliveOptions = {}): Promise<boolean> {
  return ownVerdict(subject) ?? processAlive(subject.owner, leases, options);
}

/**
 * Whether the process `owner` names is alive, whatever it runs: this very process is; any other
 * is asked as `alive` asks. A claim's holder is judged so: between its claim and its run's
 * start it runs nothing yet, and is not dead for that.
 */
export async function processAlive(owner: OwnerIdentity, leases: Leases, options: AliveOptions = {}): Promise<boolean> {
  if (ours.has(owner.instance)) return true;
  if (sameKernelView(owner)) {
    const reading = withTimeLimit(DEFAULT_OP_TIMEOUT_MS, `reading /proc/${owner.pid}/stat`, (signal) => readProcStat(owner.pid, signal));
    const stat = await reading.catch(() => null);
    // null: /proc could not be read, so the lease tells.
    if (stat !== null) return stat !== undefined && stat.startTime === owner.start_time && !ENDED_STATES.has(stat.state);
  }
  if (owner.version === undefined && owner.host === os.hostname()) return pidExists(owner.pid);
  return leases.fresh(owner.instance, options.leaseFreshMs ?? LEASE_FRESH_MS).catch(() => true);
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
