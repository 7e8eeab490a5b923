/**
 * The file system a folder is on (the benches' run folders, bench/run-folders.ts), as Linux's
 * mount table names it. Every figure with saving on depends on it: on an ext4 without a journal,
 * creating a file skips every inode removed in the last minute or more, and right after
 * thousands were removed costs more than 20 times what it does on the same disk when quiet
 * (`npm run bench -- disk`). Undefined off Linux, or when the folder cannot be placed.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';

export interface Filesystem {
  dir: string;
  mountPoint: string;
  type: string;
  device: string;
  mountOptions: string;
  superOptions: string;
  /** ext2, ext3, ext4 only: whether it has a journal (undefined when the kernel does not say). */
  journal?: boolean;
}

interface Mount {
  devNumber: string;
  mountPoint: string;
  type: string;
  device: string;
  mountOptions: string;
  superOptions: string;
}

export function filesystemOf(dir: string): Filesystem | undefined {
  try {
    if (!existsSync('/proc/self/mountinfo')) return undefined;
    const stat = statSync(dir);
    const devNumber = `${Math.floor(stat.dev / 256) & 0xfff}:${(stat.dev & 0xff) | ((stat.dev >> 12) & 0xfff00)}`;
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter(Boolean).map(mountOf);
    // The folder's own device; of its mounts, the last (the one on top).
    const mount = mounts.filter((one) => one.devNumber === devNumber).at(-1);
    if (!mount) return undefined;
    const { devNumber: _, ...named } = mount;
    const journal = /^ext[234]$/.test(mount.type) ? journaled(devNumber) : undefined;
    return { dir, ...named, ...(journal === undefined ? {} : { journal }) };
  } catch {
    return undefined;
  }
}

/** One line of mountinfo: `id parent major:minor root mountPoint options ... - type device superOptions`. */
function mountOf(line: string): Mount {
  const fields = line.split(' ');
  const after = fields.indexOf('-');
  const unescaped = (text: string) => text.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  return {
    devNumber: fields[2]!,
    mountPoint: unescaped(fields[4]!),
    type: fields[after + 1]!,
    device: unescaped(fields[after + 2]!),
    mountOptions: fields[5]!,
    superOptions: fields[after + 3]!,
  };
}

/**
 * The kernel's own name for the device (vda, dm-0, not /dev/mapper/...), then what ext4 says of
 * its journal (`<none>` when it has none), else whether jbd2 keeps one for it (`<name>-<inode>`).
 */
function journaled(devNumber: string): boolean | undefined {
  const name = path.basename(readlinkSync(`/sys/dev/block/${devNumber}`));
  const task = `/sys/fs/ext4/${name}/journal_task`;
  if (existsSync(task)) return readFileSync(task, 'utf8').trim() !== '<none>';
  if (!existsSync('/proc/fs/jbd2')) return undefined;
  const journal = new RegExp(`^${name}-\\d+$`);
  return readdirSync('/proc/fs/jbd2').some((entry) => journal.test(entry));
}
