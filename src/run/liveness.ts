import { randomBytes } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { withinMs } from '../clock.js';
import type { RunStorage } from '../store/store.js';
import { packageVersion } from '../version.js';
import type { Owner } from './record.js';

/** Every wait has a limit, even on /proc. */
const PROC_READ_MS = 5000;
/** A zombie, or a process being reaped: ended, though /proc still shows it. */
const ENDED_STATES = new Set(['Z', 'X', 'x']);

/** Tells whether a run's owner is alive, never by the journal's age: a model may be silent for an hour. */
export class Liveness {
  private readonly ours = new Set<string>();
  private readonly running = new Set<string>();
  private readonly view = ownKernelView();

  constructor(
    private readonly store: Pick<RunStorage, 'leaseFresh'> | undefined,
    /** A lease untouched for this long is a process gone; undefined: the store's own limit. */
    private readonly leaseFreshMs?: number,
  ) {}

  newOwner(): Owner {
    const instance = randomBytes(8).toString('hex');
    this.ours.add(instance);
    return { pid: process.pid, host: os.hostname(), instance, ...this.view, version: packageVersion() };
  }

  runningHere(id: string, settled: Promise<void>): void {
    this.running.add(id);
    void settled.then(() => this.running.delete(id));
  }

  async alive(subject: { run_id: string; owner: Owner }): Promise<boolean> {
    return this.ours.has(subject.owner.instance) ? this.running.has(subject.run_id) : this.processAlive(subject.owner);
  }

  /**
   * The pid and start time tell on this kernel, so a reused pid is not alive; elsewhere the lease
   * tells, and an unreadable lease counts as alive since taking a live run over would pay twice.
   */
  async processAlive(owner: Owner): Promise<boolean> {
    if (this.ours.has(owner.instance)) return true;
    if (sameKernelView(owner, this.view)) {
      const read = (signal: AbortSignal) => readProcStat(owner.pid, signal);
      const stat = await withinMs(PROC_READ_MS, read, () => new Error('/proc did not answer')).catch(() => null);
      // null: /proc could not be read, so the lease tells.
      if (stat !== null) return stat !== undefined && stat.startTime === owner.start_time && !ENDED_STATES.has(stat.state);
    }
    if (owner.version === undefined && owner.host === os.hostname()) return pidExists(owner.pid);
    return this.store ? this.store.leaseFresh(owner.instance, this.leaseFreshMs) : false;
  }
}

/** For owners recorded by older versions; our own pid is a previous life, and pid <= 0 means a group. */
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
function sameKernelView(owner: Owner, view: KernelView | undefined): boolean {
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

/** `startTime` is in clock ticks after boot. */
interface ProcStat {
  pid: number;
  state: string;
  startTime: number;
}

export interface KernelView {
  start_time: number;
  boot_id: string;
  pid_ns: string;
}

/** The command name may hold spaces and parentheses, so fields are counted from the last `)`. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open));
  const after = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const [state, startTime] = [after[0], Number(after[19])];
  if (!Number.isSafeInteger(pid) || pid <= 0 || !state || !Number.isSafeInteger(startTime)) return undefined;
  return { pid, state, startTime };
}

export async function readProcStat(pid: number, signal: AbortSignal): Promise<ProcStat | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, { encoding: 'utf8', signal }));
  } catch (error) {
    // ESRCH: the process ended while its file was read.
    if (['ENOENT', 'ESRCH'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}

/** This process's own view is the same for its whole life: read once, however many Liveness it makes (one per team member). */
let own: { view: KernelView | undefined } | undefined;
function ownKernelView(): KernelView | undefined {
  own ??= { view: readOwnKernelView() };
  return own.view;
}

/**
 * Undefined where /proc is not this process's own (one mounted for another PID namespace shows
 * another process as "self"). Synchronous: procfs answers from the kernel's memory, never a disk.
 */
export function readOwnKernelView(): KernelView | undefined {
  try {
    const stat = parseProcStat(readFileSync('/proc/self/stat', 'utf8'));
    if (stat?.pid !== process.pid) return undefined;
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return { start_time: stat.startTime, boot_id: bootId, pid_ns: readlinkSync('/proc/self/ns/pid') };
  } catch {
    return undefined;
  }
}
