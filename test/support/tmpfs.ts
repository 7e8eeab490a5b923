import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Tmpfs {
  dir: string;
  unmount(): Promise<void>;
}

/**
 * A tiny file system of its own (tmpfs, 0700), to fill up for real. Needs the right to mount
 * (root, or CAP_SYS_ADMIN): a string saying why not when it cannot be had.
 */
export async function mountTmpfs(sizeKiB: number): Promise<Tmpfs | string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'parallel-llm-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=700`, 'tmpfs', dir]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here: ${(error as Error).message.split('\n')[0]}`;
  }
  return {
    dir,
    unmount: async () => {
      // Lazily if something still holds it, so that the mount never outlives the test.
      await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
