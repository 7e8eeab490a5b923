/**
 * The file system a folder is on (the benches' run folders, bench/run-folders.ts), as Linux's
 * mount table names it. Every figure with saving on depends on it: on an ext4 without a journal,
 * creating a file skips every inode removed in the last minute, and right after thousands were
 * removed costs up to 35 times what it does on an ext4 with one (`npm run bench -- disk`).
 * Undefined off Linux.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

export interface Filesystem {
  dir: string;
  mountPoint: string;
  type: string;
  device: string;
  options: string;
  /** ext4 only: whether it has a journal. */
  journal?: boolean;
}

export function filesystemOf(dir: string): Filesystem | undefined {
  if (!existsSync('/proc/self/mountinfo')) return undefined;
  const real = realpathSync(dir);
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter(Boolean).map(mountOf);
  const inside = (mount: { mountPoint: string }) =>
    mount.mountPoint === '/' || real === mount.mountPoint || real.startsWith(`${mount.mountPoint}/`);
  // The longest mount point holding the folder, the last mounted when two share it.
  const mount = mounts.filter(inside).reduce((best, next) => (next.mountPoint.length >= best.mountPoint.length ? next : best));
  const journal = mount.type === 'ext4' ? journaled(mount.device) : undefined;
  return { dir: real, ...mount, ...(journal === undefined ? {} : { journal }) };
}

/** One line of mountinfo: `id parent major:minor root mountPoint options ... - type device superOptions`. */
function mountOf(line: string): Omit<Filesystem, 'dir' | 'journal'> {
  const fields = line.split(' ');
  const after = fields.indexOf('-');
  const unescape = (text: string) => text.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  return {
    mountPoint: unescape(fields[4]!),
    type: fields[after + 1]!,
    device: fields[after + 2]!,
    options: `${fields[5]},${fields[after + 3]}`,
  };
}

/** jbd2 lists each journal it keeps as `<device>-<inode>`; without jbd2 loaded, no file system has one. */
function journaled(device: string): boolean {
  const name = path.basename(device);
  return existsSync('/proc/fs/jbd2') && readdirSync('/proc/fs/jbd2').some((entry) => entry.startsWith(`${name}-`));
}
