/**
 * The product's processes as the kernel sees them: today the MCP server, soon a server and a
 * detached run host that is not its child. So they are found by what they run, not by
 * parentage: every process whose command line names the installed bin (or the file it links
 * to). Their CPU time comes from schedstat (nanoseconds, every thread summed), since the ticks
 * of /proc/PID/stat are 10 ms, too coarse for a few microseconds per event.
 */
import { readdir, readFile, realpath } from 'node:fs/promises';

const PAGE_BYTES = 4096;

/** The pids of every process whose command line holds one of `paths`. */
export async function pidsRunning(paths: string[]): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (args.some((arg) => paths.includes(arg))) pids.push(Number(entry));
  }
  return pids;
}

/** How to find the product's processes: the bin's path and the file it resolves to. */
export async function productPaths(binPath: string): Promise<string[]> {
  return [binPath, await realpath(binPath)];
}

/** CPU time (user + system, every thread) of the processes, in ns; a process gone meanwhile counts 0. */
export async function cpuNs(pids: number[]): Promise<number> {
  let total = 0;
  for (const { main, others } of (await threadCpuNs(pids)).values()) total += main + others;
  return total;
}

/** CPU time (ns) of each process's main thread and of its other threads (libuv's, V8's), by pid. */
export async function threadCpuNs(pids: number[]): Promise<Map<number, { main: number; others: number }>> {
  const byPid = new Map<number, { main: number; others: number }>();
  for (const pid of pids) {
    const spent = { main: 0, others: 0 };
    for (const task of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
      const schedstat = await readFile(`/proc/${pid}/task/${task}/schedstat`, 'utf8').catch(() => '0');
      spent[task === String(pid) ? 'main' : 'others'] += Number(schedstat.split(' ')[0]);
    }
    byPid.set(pid, spent);
  }
  return byPid;
}

/** The resident set of the processes now, summed, in MiB. */
async function rssMiB(pids: number[]): Promise<number> {
  let pages = 0;
  for (const pid of pids) pages += Number((await readFile(`/proc/${pid}/statm`, 'utf8').catch(() => '0 0')).split(' ')[1]);
  return (pages * PAGE_BYTES) / 2 ** 20;
}

/**
 * Samples the summed resident set of the product's processes every `everyMs` until `stop`,
 * which resolves to its peak in MiB and every process seen. The list of processes is refreshed
 * every `rescanMs`: a process (a run host) may start at any moment.
 */
export function samplePeakRss(paths: string[], everyMs = 20, rescanMs = 250): { stop(): Promise<{ peakMiB: number; pids: number[] }> } {
  let peak = 0;
  let pids: number[] = [];
  const seen = new Set<number>();
  let scannedAt = -Infinity;
  let running = true;
  const loop = (async () => {
    while (running) {
      if (performance.now() - scannedAt >= rescanMs) {
        pids = await pidsRunning(paths);
        for (const pid of pids) seen.add(pid);
        scannedAt = performance.now();
      }
      peak = Math.max(peak, await rssMiB(pids));
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { peakMiB: peak, pids: [...seen] };
    },
  };
}
