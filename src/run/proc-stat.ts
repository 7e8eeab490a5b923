import { readFileSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

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
