import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * The run hosts whose folder lies under `dir` (a host runs in its folder): found through /proc,
 * since a host is detached and no test's child. Linux only; elsewhere none are found.
 */
export async function hostsUnder(dir: string): Promise<number[]> {
  const pids = (await readdir('/proc').catch(() => [])).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    pids.map(async (pid) => {
      const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
      if (cwd !== dir && !cwd.startsWith(`${dir}${path.sep}`)) return undefined;
      const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
      return args.includes('host') ? Number(pid) : undefined;
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

/** Stops every run host under `dir`: SIGTERM, then SIGKILL after 3 s. A test ends what it starts. */
export async function stopHostsUnder(dir: string): Promise<void> {
  const pids = await hostsUnder(dir);
  for (const pid of pids) signal(pid, 'SIGTERM');
  const started = Date.now();
  while (pids.some(alive) && Date.now() - started < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const pid of pids.filter(alive)) signal(pid, 'SIGKILL');
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}
